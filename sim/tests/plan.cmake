# cmake -DSIM=tide-sim -DREF=sim_plan_ref -DRANKS=16 -DIMB=3 -DOFFLOAD=rr -DDIR=dir -P plan.cmake
# An exact-prediction proact run moves exactly the tasks of proact's plan (tide_plan_proact,
# then the moves that pay for their transfer), pair by pair, in every phase (tide-sim --moves
# against sim_plan_ref).
set(tag ${RANKS}_${IMB}_${OFFLOAD})
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=proact TIDE_OFFLOAD=${OFFLOAD}
  ${SIM} --pred exact --ranks ${RANKS} --threads 2 --imb ${IMB} --tasks-per-rank 16 --task-ms 10
  --iters 3 --moves ${DIR}/plan_sim_${tag}.txt --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${REF} ${RANKS} ${IMB} 16 10 3 2 OUTPUT_FILE ${DIR}/plan_ref_${tag}.txt
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sim_plan_ref failed (${rc})")
endif()
file(READ ${DIR}/plan_sim_${tag}.txt got)
file(READ ${DIR}/plan_ref_${tag}.txt want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "moves differ from the plan:\nsimulated:\n${got}\nplanned:\n${want}")
endif()
if(want STREQUAL "")
  message(FATAL_ERROR "the plan moves nothing: the case tests nothing")
endif()
message("${want}")
