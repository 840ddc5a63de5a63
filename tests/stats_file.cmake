# cmake -DMPIEXEC=... -DPROGRAM=test_stress -DFILE=path -P stats_file.cmake
# TIDE_STATS names a file that holds more bytes than the document: after the run it holds the
# document alone, valid JSON with one entry per phase.
string(REPEAT "junk that must not survive the run\n" 20000 junk)
file(WRITE ${FILE} "${junk}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_STATS=${FILE} ${MPIEXEC} -n 2 ${PROGRAM} 4 1
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run failed (${rc}):\n${out}${err}")
endif()
file(READ ${FILE} doc)
if(doc MATCHES "junk")
  message(FATAL_ERROR "the old contents survived:\n${doc}")
endif()
string(JSON phases LENGTH "${doc}" phases)
if(NOT phases EQUAL 4)
  message(FATAL_ERROR "expected 4 phases, the document has ${phases}:\n${doc}")
endif()
