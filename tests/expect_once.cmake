# cmake -DPATTERN=... -P expect_once.cmake -- command args...
# Passes when the command exits 0 and PATTERN occurs in its output exactly once.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(all "${out}${err}")
message("${all}")
string(REGEX MATCHALL "${PATTERN}" hits "${all}")
list(LENGTH hits n)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "command failed with ${rc}")
endif()
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected '${PATTERN}' exactly once, found ${n} times")
endif()
