# cmake -DSIM=tide-sim -DARGS="a;b" -DDIR=dir -P same.cmake
# Determinism: two runs with the same seed write byte-identical statistics; a third run with
# another seed writes different ones (so that the seed reaches the random choices at all).
foreach(run a b c)
  set(seed 7)
  if(run STREQUAL "c")
    set(seed 8)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_SEED=${seed} ${SIM} ${ARGS} --quiet
    --stats ${DIR}/same_${run}.json RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run} failed (${rc}): ${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/same_a.json ${DIR}/same_b.json
  RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "the same seed gave different statistics")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/same_a.json ${DIR}/same_c.json
  RESULT_VARIABLE differ)
if(NOT differ)
  message(FATAL_ERROR "seeds 7 and 8 gave identical statistics: the seed is not used")
endif()
