# Runs COMMAND (a ;-list) and checks that it exits with CODE and that stderr holds exactly one
# line from PROGRAM or Tide ("PROGRAM: ..." or "tide: ..."; once, not once per rank), matching
# STDERR_REGEX; mpiexec may add its own banner.
# Usage: cmake -DPROGRAM=mxm -DCODE=2 -DSTDERR_REGEX=... -DCOMMAND=... -P expect_one_line.cmake
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL CODE)
  message(FATAL_ERROR "exit code ${rc}, expected ${CODE}\nstdout: ${out}\nstderr: ${err}")
endif()
string(REGEX MATCHALL "(^|\n)(${PROGRAM}|tide):[^\n]*" lines "${err}")
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one ${PROGRAM}/tide line on stderr, got ${n}:\n${err}")
endif()
string(STRIP "${lines}" line)
if(NOT line MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "'${line}' does not match '${STDERR_REGEX}'")
endif()
