# cmake -DSIM=tide-sim -DLB=proact|proact_react -DLIMIT=percent -DGAIN=percent [-DRANKS=P]
#       -DDIR=dir -P slow_net.cmake
# A plan whose own collectives take a large part of the phase (issue 26, item 4): 128 ranks x 14
# workers of the AMR-like workload on 1 GbE (the ethernet platform), 10 ms phases, in which the
# start status allgather, the pooled task models and the weights' allgatherv take 3-5 ms. The
# workers run meanwhile (TIDE_LB_START_EARLY: 9 tasks per worker, tide_proto_hold_own), the
# plan moves only what is still queued, its
# sends leave from when it is made (the status's plan_at), and a planned phase has no timed rounds
# (rounds_needed): every phase after the TIDE_PRED_TRAIN phases of training takes at most
# LIMIT% of none's median phase, their mean is at least GAIN% below none's, and the plans moved
# tasks. When the workers waited for the plan, each of those phases took 2-6% longer than none's
# median. proact_react's timed rounds (its reactive part) stop after a plan when a round costs
# more than a quarter of the planned work per worker (proact.c, rounds_pay): while they went on,
# one of its phases took 0.7% more than none's median and they gained 3.6%; now at most 98.7%
# and 5.6% (proact 9%).
# With RANKS=256 the weighted plan's collectives (pooled models, loads, weights) come after the
# heavy ranks' work: proact must switch to the uniform plan (proact.c, plan_kind). Without the
# switch its phases after training took 0.96-1.04x none's median and gained 1%; with it, 14%.
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
if(NOT DEFINED RANKS)
  set(RANKS 128)
endif()
set(train 6)
set(iters 12)
set(env TIDE_PRED_TRAIN=${train} TIDE_PRED_WINDOW=2)
set(args --platform ethernet --ranks ${RANKS} --threads 14 --tasks-per-rank 128 --samoa 17
  --samoa-steps 100 --samoa-cost 4,50,200 --iters ${iters} --quiet)
foreach(lb none ${LB})
  set(stats ${DIR}/${LB}_${RANKS}_${lb}.json)
  set(moves_${lb} ${DIR}/${LB}_${RANKS}_${lb}.moves)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=${lb} ${env} ${SIM} ${args}
    --stats ${stats} --moves ${moves_${lb}} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim ${lb} failed (${rc}): ${err}")
  endif()
  file(READ ${stats} doc_${lb})
endforeach()

math(EXPR last "${iters} - 1")
set(times)
set(none_sum 0)
foreach(p RANGE ${last})
  string(JSON t GET "${doc_none}" phases ${p} time)
  to_micro(t_u ${t})
  list(APPEND times "${t_u}")
  if(p GREATER_EQUAL train)
    math(EXPR none_sum "${none_sum} + ${t_u}")
  endif()
endforeach()
list(SORT times COMPARE NATURAL)
math(EXPR mid "${iters} / 2")
list(GET times ${mid} median)
math(EXPR limit "${median} * ${LIMIT} / 100")

set(sum 0)
set(took)
foreach(p RANGE ${train} ${last})
  string(JSON t GET "${doc_${LB}}" phases ${p} time)
  to_micro(t_u ${t})
  list(APPEND took ${t_u})
  math(EXPR sum "${sum} + ${t_u}")
  if(t_u GREATER limit)
    message(FATAL_ERROR "phase ${p}: ${LB} took ${t_u} us, over ${LIMIT}% of none's median "
                        "phase (${median} us)")
  endif()
endforeach()
math(EXPR bound "${none_sum} * (100 - ${GAIN}) / 100")
if(sum GREATER bound)
  message(FATAL_ERROR "${LB}'s planned phases took ${sum} us, not ${GAIN}% below none's "
                      "${none_sum} us")
endif()

# The plans moved tasks ("phase from to count" lines, phases counted from 0).
file(STRINGS ${moves_${LB}} lines)
set(moved 0)
foreach(line ${lines})
  string(REPLACE " " ";" f "${line}")
  list(GET f 0 p)
  list(GET f 3 n)
  if(p GREATER_EQUAL train)
    math(EXPR moved "${moved} + ${n}")
  endif()
endforeach()
if(moved EQUAL 0)
  message(FATAL_ERROR "${LB} moved no task after training: nothing was balanced")
endif()
list(JOIN took " " took)
message("${LB}: planned phases ${took} us (sum ${sum}, none's ${none_sum}); none's median "
        "${median} us; ${moved} tasks moved")
