# cmake -DSIM=tide-sim -DLB=react -DPERCENT=50 [-DPRED=exact] -DDIR=dir -P balance.cmake
# A balancing strategy lowers R_imb on Imb.3 (16 ranks) to below PERCENT % of `none`'s. Fails
# when the strategy does nothing.
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
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
# Imb.3 leaves none at about 3 (the R_imb of the task counts).
to_micro(none_u ${r_none})
to_micro(lb_u ${r_${LB}})
if(none_u LESS 2500000)
  message(FATAL_ERROR "none has R_imb ${r_none}: the workload is not Imb.3")
endif()
math(EXPR bound "${none_u} * ${PERCENT} / 100")
if(NOT lb_u LESS bound)
  message(FATAL_ERROR "${LB} leaves R_imb at ${r_${LB}}, not below ${PERCENT}% of none's ${r_none}")
endif()
