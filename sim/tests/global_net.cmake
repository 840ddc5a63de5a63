# cmake -DSIM=tide-sim -DLB=greedy -DNET=fair -DPERCENT=5 -DDIR=dir -P global_net.cmake
# A rescheduling round's migration timed by the endpoint model (--net fast|fair: one batch,
# sim_net_batch_time) against SimGrid's flows (--net exact), 64 ranks of coolmuc2: the same
# decision (objects moved, max/avg after, the decision's time: its messages stay flows), the
# statistics name the model, and the migration's time (total - decision) is within PERCENT.
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
foreach(net exact ${NET})
  set(stats ${DIR}/global_net_${LB}_${net}.json)
  execute_process(COMMAND ${SIM} --platform coolmuc2 --ranks 64 --imb 3 --tasks-per-rank 16
    --global ${LB} --net ${net} --stats ${stats} --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim --global ${LB} --net ${net} failed (${rc}): ${err}")
  endif()
  file(READ ${stats} doc)
  foreach(key decision_time total_time moved max_after net)
    string(JSON ${key}_${net} GET "${doc}" ${key})
  endforeach()
  to_micro(d ${decision_time_${net}})
  to_micro(t ${total_time_${net}})
  math(EXPR mig_u_${net} "${t} - ${d}")
endforeach()
if(NOT net_${NET} STREQUAL NET OR NOT net_exact STREQUAL "exact")
  message(FATAL_ERROR "the statistics say net '${net_exact}' and '${net_${NET}}'")
endif()
if(NOT moved_exact EQUAL moved_${NET} OR NOT max_after_exact EQUAL max_after_${NET}
   OR moved_exact EQUAL 0)
  message(FATAL_ERROR "another decision with --net ${NET}: ${moved_${NET}} moved (exact "
                      "${moved_exact}), max ${max_after_${NET}} (exact ${max_after_exact})")
endif()
math(EXPR diff "${mig_u_${NET}} - ${mig_u_exact}")
math(EXPR bound "${mig_u_exact} * ${PERCENT} / 100")
if(mig_u_exact LESS 100 OR diff GREATER bound OR diff LESS -${bound})
  message(FATAL_ERROR "${LB}: migration ${mig_u_${NET}} us with --net ${NET}, ${mig_u_exact} us "
                      "exact (more than ${PERCENT}% apart)")
endif()
message("${LB}: ${moved_exact} objects moved in ${mig_u_${NET}} us (${NET}), ${mig_u_exact} us "
        "(exact)")
