# cmake -DSIM=tide-sim -DARGS="a;b" [-DENV="K=V;..."] [-DRC=2] [-DPATTERN=regex] [-DONELINE=1]
#       -P run.cmake
# Runs tide-sim (or another program) and expects exit code RC (0); with PATTERN, expects its
# output to match it, and with ONELINE to be exactly one line (the one-line error of a bad knob).
if(NOT DEFINED RC)
  set(RC 0)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${SIM} ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "tide-sim exited ${rc}, expected ${RC}")
endif()
if(DEFINED PATTERN)
  string(STRIP "${all}" text)
  string(FIND "${text}" "\n" nl)
  if(NOT text MATCHES "${PATTERN}" OR (ONELINE AND NOT nl EQUAL -1))
    message(FATAL_ERROR "expected output matching '${PATTERN}' (on one line: ${ONELINE})")
  endif()
endif()
