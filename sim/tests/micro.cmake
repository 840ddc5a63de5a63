# to_micro(OUT "0.0419999") sets OUT to the value in millionths, truncated (an integer that
# math(EXPR) compares): CMake has no floating-point arithmetic. Plain decimals only.
function(to_micro out value)
  if(NOT value MATCHES "^([0-9]+)(\\.([0-9]*))?$")
    message(FATAL_ERROR "not a plain decimal: ${value}")
  endif()
  set(int ${CMAKE_MATCH_1})
  string(SUBSTRING "${CMAKE_MATCH_3}000000" 0 6 frac)
  # 1 before the digits keeps their leading zeros out of the way (a REGEX REPLACE of "^0+"
  # would match again after each replacement: "010002" became 12)
  math(EXPR v "${int} * 1000000 + 1${frac} - 1000000")
  set(${out} ${v} PARENT_SCOPE)
endfunction()

# within(OUT A B PARTS PER) sets OUT to TRUE when plain decimals A and B are at most
# A * PARTS / PER apart (in millionths), else FALSE.
function(within out a b parts per)
  to_micro(a_u ${a})
  to_micro(b_u ${b})
  math(EXPR diff "${b_u} - ${a_u}")
  math(EXPR bound "${a_u} * ${parts} / ${per}")
  if(diff GREATER bound OR diff LESS -${bound})
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()
