# ctest's run of one reproduction script at its tiny size (cmake/Reproduce.cmake):
#   cmake -DSCRIPT=<scripts/reproduce> -DNAME=<name> -DOUT=<dir> -DBUILD=<build dir> -P this
# Passes when the script exits 0, wrote OUT/NAME.csv and OUT/NAME.png (non-empty) and printed a
# verdict line (same, same shape or different: why); prints the script's output either way.
file(REMOVE_RECURSE ${OUT})
set(ENV{REPRO_BUILD_DIR} ${BUILD})
execute_process(COMMAND ${SCRIPT} ${NAME} --tiny --out ${OUT} OUTPUT_VARIABLE out
                ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scripts/reproduce ${NAME} --tiny exited with ${rc}")
endif()
foreach(f ${OUT}/${NAME}.csv ${OUT}/${NAME}.png)
  file(SIZE ${f} size)
  if(NOT EXISTS ${f} OR size EQUAL 0)
    message(FATAL_ERROR "${f} is missing or empty")
  endif()
endforeach()
if(NOT out MATCHES "(^|\n)verdict: (same|same shape|different: [^\n]+)\n")
  message(FATAL_ERROR "no verdict line ('verdict: same', 'verdict: same shape' or 'verdict: different: ...')")
endif()
