# cmake -DEXPECT=application|comm -DFILE=stats.json -P phase_driver.cmake -- command args...
# Who runs the phases (TIDE_PHASE_DRIVER, docs/config.md): runs examples/hello (2 ranks, 10
# phases, 800 tasks) with TIDE_STATS=FILE; the statistics must name EXPECT as the phase driver
# and hold every rank's record of every phase (its tasks and a load), whichever thread gathered
# them.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
file(REMOVE ${FILE})
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_STATS=${FILE} ${cmd}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run failed (${rc}):\n${out}${err}")
endif()
file(READ ${FILE} doc)
string(JSON driver GET "${doc}" config phase_driver)
if(NOT driver STREQUAL EXPECT)
  message(FATAL_ERROR "config.phase_driver is '${driver}', expected '${EXPECT}'")
endif()
string(JSON nphases LENGTH "${doc}" phases)
string(JSON tasks GET "${doc}" summary tasks)
if(NOT nphases EQUAL 10 OR NOT tasks EQUAL 800)
  message(FATAL_ERROR "${nphases} phases and ${tasks} tasks recorded, expected 10 and 800")
endif()
math(EXPR last "${nphases} - 1")
foreach(p RANGE ${last})
  foreach(r 0 1)
    string(JSON n GET "${doc}" phases ${p} tasks ${r})
    string(JSON load GET "${doc}" phases ${p} L ${r})
    if(n EQUAL 0 OR NOT load GREATER 0)
      message(FATAL_ERROR "phase ${p}, rank ${r}: ${n} tasks, load ${load}: a record is missing")
    endif()
  endforeach()
endforeach()
message("phase_driver ${driver}: ${nphases} phases, ${tasks} tasks, every record present")
