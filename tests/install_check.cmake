# cmake -DBUILD=<tide build dir> -DSRC=<tests dir> -DWORK=<scratch dir> -DMPIEXEC=... -P install_check.cmake
# Installs Tide into a scratch prefix, then uses it as applications and tools would:
#  1. a C project with find_package(Tide): the README's program, and a TIDE_TOOL library built
#     against the installed tool API header (Tide::tool), which the program then loads;
#  2. a C++-only project (no C compiler enabled) with find_package(Tide) that calls MPI itself;
#  3. pkg-config: the README's program, run without LD_LIBRARY_PATH (the .pc's rpath), a program
#     that calls MPI itself (Requires: mpi-c), and a tool library.
file(REMOVE_RECURSE ${WORK})
set(ENV{LD_LIBRARY_PATH} "")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  message("${what}: ok")
endfunction()

function(cmake_project name)
  run("configure ${name} (find_package(Tide))" ${CMAKE_COMMAND} -S ${SRC}/${name}
    -B ${WORK}/${name} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  run("build ${name}" ${CMAKE_COMMAND} --build ${WORK}/${name})
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(header tide.h tide_mpi.h tide_predictor.h)
  if(NOT EXISTS ${WORK}/prefix/include/${header})
    message(FATAL_ERROR "${header} is not installed")
  endif()
endforeach()

cmake_project(consumer)
run("the find_package(Tide) program" ${MPIEXEC} -n 2 ${WORK}/consumer/consumer)
run("the program with the tool built against the install" ${CMAKE_COMMAND} -E env
  TIDE_TOOL=${WORK}/consumer/libconsumer_tool.so TIDE_LB=proact ${MPIEXEC} -n 2
  ${WORK}/consumer/consumer)

cmake_project(consumer_cxx)
run("the C++-only program" ${CMAKE_COMMAND} -E env TIDE_LB=random ${MPIEXEC} -n 2
  ${WORK}/consumer_cxx/consumer_cxx)

file(GLOB pcdir ${WORK}/prefix/lib*/pkgconfig ${WORK}/prefix/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND pkg-config --cflags --libs tide OUTPUT_VARIABLE flags RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "pkg-config does not know tide (PKG_CONFIG_PATH=${pcdir})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run("cc hello.c $(pkg-config --cflags --libs tide)" cc ${SRC}/../examples/hello.c ${flags}
  -o ${WORK}/hello_pc)
run("the pkg-config program without LD_LIBRARY_PATH" ${MPIEXEC} -n 2 ${WORK}/hello_pc)
run("cc of a program calling MPI itself with pkg-config tide" cc -I${SRC}
  ${SRC}/test_subcomm.c ${flags} -o ${WORK}/subcomm_pc)
run("the program calling MPI itself" ${CMAKE_COMMAND} -E env TIDE_LB=random TIDE_THREADS=1
  TIDE_GLOBAL_LB=greedy TIDE_LB_PERIOD=2 ${MPIEXEC} -n 4 ${WORK}/subcomm_pc)
execute_process(COMMAND pkg-config --cflags tide OUTPUT_VARIABLE cflags
  OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
run("a tool library with pkg-config --cflags tide" cc -shared -fPIC ${cflags}
  ${SRC}/../predictor/tests/tool_sample.c -o ${WORK}/tool_pc.so)
run("the program loading it" ${CMAKE_COMMAND} -E env TIDE_TOOL=${WORK}/tool_pc.so ${MPIEXEC} -n 2
  ${WORK}/hello_pc)
message("installed Tide works through find_package (C, C++-only), pkg-config and the tool API")
