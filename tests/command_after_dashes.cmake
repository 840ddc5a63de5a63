# Included by the -P scripts of this folder that run a command: sets `cmd` to the script's
# arguments after "--" (cmake -D... -P script.cmake -- command args...).
set(cmd "")
set(take OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(take)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(take ON)
  endif()
endforeach()
