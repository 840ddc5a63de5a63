# cmake -DPATTERN=... -DTIMEOUT=seconds -P expect_abort.cmake -- command args...
# Passes when the command fails (a non-zero exit, not a timeout) within TIMEOUT seconds and
# PATTERN occurs in its output exactly once.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
execute_process(COMMAND ${cmd} TIMEOUT ${TIMEOUT} OUTPUT_VARIABLE out ERROR_VARIABLE err
  RESULT_VARIABLE rc)
set(all "${out}${err}")
message("${all}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the command did not end by itself: ${rc}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "the command succeeded")
endif()
string(REGEX MATCHALL "${PATTERN}" hits "${all}")
list(LENGTH hits n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected '${PATTERN}' exactly once, found ${n} times")
endif()
