# cmake -DBUILD=<tide build dir> -DPROGRAM=<a Tide program's source> -DWORK=<scratch dir>
#       -DMPIEXEC=... -P install_tools.cmake
# Installs Tide into a scratch prefix and uses its tools as a user who has only that prefix:
# PATH holds the prefix's bin/ and the system's folders, nothing of the build or the sources.
# A program built with the prefix's pkg-config flags runs 10 phases with TIDE_STATS and
# TIDE_TRACE; then trace-gantt draws the trace, tide-predict replays the statistics document
# (and must predict), and tide_series_gen feeds tide-predict through a pipe.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/run)
set(ENV{LD_LIBRARY_PATH} "")

function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK}/run RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  message("${what}: ok\n${out}")
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(tool trace-gantt tide-predict tide_series_gen)
  if(NOT EXISTS ${WORK}/prefix/bin/${tool} OR IS_SYMLINK ${WORK}/prefix/bin/${tool})
    message(FATAL_ERROR "bin/${tool} is not installed (as a file)")
  endif()
endforeach()
set(ENV{PATH} "${WORK}/prefix/bin:/usr/local/bin:/usr/bin:/bin")
file(GLOB pcdir ${WORK}/prefix/lib*/pkgconfig ${WORK}/prefix/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND pkg-config --cflags --libs tide OUTPUT_VARIABLE flags
  OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(flags UNIX_COMMAND "${flags}")
file(COPY ${PROGRAM} DESTINATION ${WORK}/run)
get_filename_component(source ${PROGRAM} NAME)
run("cc ${source} with the prefix's pkg-config flags" cc ${source} ${flags} -o program)
run("a 10-phase run with TIDE_STATS and TIDE_TRACE" ${CMAKE_COMMAND} -E env TIDE_STATS=run.json
  TIDE_TRACE=trace.json TIDE_LB=proact TIDE_PRED_TRAIN=6 TIDE_PRED_WINDOW=2 TIDE_THREADS=2
  ${MPIEXEC} -n 2 ./program)

run("trace-gantt" trace-gantt trace.json -o trace.png)
if(NOT out MATCHES "trace-gantt: [0-9]+ tasks, 10 phases")
  message(FATAL_ERROR "trace-gantt did not draw the 10 phases:\n${out}")
endif()
file(READ ${WORK}/run/trace.png magic LIMIT 4 HEX)
if(NOT magic STREQUAL "89504e47")
  message(FATAL_ERROR "trace.png is not a PNG (starts with ${magic})")
endif()

# The run's own TIDE_PRED_* settings come from the document: none given here.
run("tide-predict on the TIDE_STATS document" tide-predict run.json)
if(NOT out MATCHES "rank 0: 10 phases.*rank 1: 10 phases.*overall: ([0-9]+) predicted.*window 2, train 6,"
    OR CMAKE_MATCH_1 LESS 1)
  message(FATAL_ERROR "tide-predict did not replay the run's 10 phases with predictions:\n${out}")
endif()

run("tide_series_gen | tide-predict" tide_series_gen clean-ar2 2 60 COMMAND tide-predict /dev/stdin)
if(NOT out MATCHES "overall: ([0-9]+) predicted" OR CMAKE_MATCH_1 LESS 40)
  message(FATAL_ERROR "tide-predict predicted too little of the generated series:\n${out}")
endif()
message("the install prefix alone draws a trace and replays a run's loads through the predictor")
