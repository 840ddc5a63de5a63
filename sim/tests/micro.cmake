# to_micro(OUT "0.0419999") sets OUT to the value in millionths, truncated (an integer that
# math(EXPR) compares): CMake has no floating-point arithmetic. Plain decimals only.
function(to_micro out value)
  if(NOT value MATCHES "^([0-9]+)(\\.([0-9]*))?$")
    message(FATAL_ERROR "not a plain decimal: ${value}")
  endif()
  set(int ${CMAKE_MATCH_1})
  string(SUBSTRING "${CMAKE_MATCH_3}000000" 0 6 frac)
  string(REGEX REPLACE "^0+([0-9])" "\\1" frac "${frac}")
  math(EXPR v "${int} * 1000000 + ${frac}")
  set(${out} ${v} PARENT_SCOPE)
endfunction()
