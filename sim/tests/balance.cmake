# cmake -DSIM=tide-sim -DLB=react [-DPRED=exact] -DDIR=dir -P balance.cmake
# A balancing strategy lowers R_imb on Imb.3 (16 ranks): to at most half of `none`'s. Fails
# when the strategy does nothing.
if(NOT DEFINED PRED)
  set(PRED model)
endif()
foreach(lb none ${LB})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=${lb} ${SIM} --ranks 16 --threads 2
    --imb 3 --iters 5 --task-ms 10 --pred ${PRED} --quiet --stats ${DIR}/balance_${LB}_${lb}.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim ${lb} failed (${rc}): ${err}")
  endif()
  file(READ ${DIR}/balance_${LB}_${lb}.json doc)
  string(JSON r_${lb} GET "${doc}" summary R_imb)
endforeach()
message("R_imb: none ${r_none}, ${LB} ${r_${LB}}")
# Imb.3 leaves none at about 3 (R_imb of the task counts); a strategy must reach half of that.
if(r_none LESS 2.5)
  message(FATAL_ERROR "none has R_imb ${r_none}: the workload is not Imb.3")
endif()
if(NOT r_${LB} LESS 1.25)
  message(FATAL_ERROR "${LB} leaves R_imb at ${r_${LB}}, not below 1.25 (none: ${r_none})")
endif()
