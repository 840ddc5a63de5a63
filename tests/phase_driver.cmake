# cmake -DEXPECT=application|comm -DCOLL=shm|mpi -DFILE=stats.json [-DRANKS=2]
#   -P phase_driver.cmake -- cmd...
# Who runs the phases (TIDE_PHASE_DRIVER, docs/config.md) and how the application thread's phases
# agree (TIDE_PHASE_COLL): runs examples/hello (RANKS ranks, 10 phases, 64 tasks a phase on rank
# 0, 16 on the others) with TIDE_STATS=FILE; the statistics must name EXPECT as the phase driver
# and COLL as the phase collective, and hold every rank's record of every phase (its tasks and a
# load), whichever thread gathered them and whichever way.
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
string(JSON coll GET "${doc}" config phase_coll)
if(NOT coll STREQUAL COLL)
  message(FATAL_ERROR "config.phase_coll is '${coll}', expected '${COLL}'")
endif()
string(JSON nphases LENGTH "${doc}" phases)
string(JSON tasks GET "${doc}" summary tasks)
if(NOT RANKS)
  set(RANKS 2)
endif()
math(EXPR want "10 * (64 + 16 * (${RANKS} - 1))")
if(NOT nphases EQUAL 10 OR NOT tasks EQUAL want)
  message(FATAL_ERROR "${nphases} phases and ${tasks} tasks recorded, expected 10 and ${want}")
endif()
math(EXPR last "${nphases} - 1")
foreach(p RANGE ${last})
  math(EXPR last_rank "${RANKS} - 1")
  foreach(r RANGE ${last_rank})
    string(JSON n GET "${doc}" phases ${p} tasks ${r})
    string(JSON load GET "${doc}" phases ${p} L ${r})
    if(n EQUAL 0 OR NOT load GREATER 0)
      message(FATAL_ERROR "phase ${p}, rank ${r}: ${n} tasks, load ${load}: a record is missing")
    endif()
  endforeach()
endforeach()
message("phase_driver ${driver}, phase_coll ${coll}: ${nphases} phases, ${tasks} tasks, every record present")
