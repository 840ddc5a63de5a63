# cmake -DSIM=tide-sim -DFILE=scenario.cbench -DDIR=dir -P cbench_same.cmake
# Determinism of the cbench loop under PackDrop (random gossip peers and walks, no measured CPU
# time): the same seed gives byte-identical reports; another seed another protocol run.
foreach(run a b c)
  set(seed 7)
  if(run STREQUAL "c")
    set(seed 8)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_SEED=${seed} TIDE_GLOBAL_LB=packdrop ${SIM}
    --platform coolmuc2 --ranks 16 --threads 2 --cbench ${FILE} --cbench-set n=256
    --cbench-set r=6 --cbench-set lbfreq=2 --quiet --stats ${DIR}/cbench_same_${run}.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run} failed (${rc}): ${err}")
  endif()
  file(READ ${DIR}/cbench_same_${run}.json doc_${run})
endforeach()
if(NOT doc_a STREQUAL doc_b)
  message(FATAL_ERROR "the same seed gave different reports")
endif()
string(JSON r_a GET "${doc_a}" reschedules)
string(JSON r_c GET "${doc_c}" reschedules)
if(r_a STREQUAL r_c)
  message(FATAL_ERROR "seeds 7 and 8 gave the same reschedules: the seed is not used")
endif()
