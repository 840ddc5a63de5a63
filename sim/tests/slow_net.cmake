# cmake -DSIM=tide-sim -DLB=proact|proact_react -DLIMIT=percent -DGAIN=percent [-DRANKS=P]
#       [-DEXPECT=plan|idle] -DDIR=dir -P slow_net.cmake
# A plan whose own collectives take a large part of the phase (issue 26, item 4): RANKS (128)
# ranks x 14 workers of the AMR-like workload on 1 GbE (the ethernet platform), 5-10 ms phases,
# in which the start status allgather, the pooled task models and the weights' allgatherv take
# 3-5 ms, against none's phase that ends with one allreduce (libtide's inline phase). Every phase
# after the TIDE_PRED_TRAIN phases of training takes at most LIMIT% of none's median phase or of
# none's same phase, whichever is longer (a phase the plan gate runs without the protocol is
# none's phase), and (EXPECT=plan) their sum is at least GAIN% below none's.
# EXPECT=plan (default, 128 ranks): the plans pay and moved tasks. The workers run while proact
# plans (TIDE_LB_START_EARLY: 9 tasks per worker, tide_proto_hold_own), the plan moves only
# what is still queued, its sends leave from when it is made (the status's plan_at), and a
# planned phase has no timed rounds (rounds_needed): when the workers waited for the plan, each
# of those phases took 2-6% longer than none's median; proact_react's timed rounds (its reactive
# part) stop after a plan when a round costs more than a quarter of the planned work per worker
# (proact.c, rounds_pay).
# EXPECT=idle (256 ranks): even the uniform plan (proact.c, plan_kind) loses to none there (its
# planned phases took 1.00-1.15x none's same phase): the plan gate (tide_core_proto.h) must
# measure that: its idle block samples the three phases after training (within 110% of none's;
# the first starts skewed by the plan before it), and every later phase runs without the
# protocol, none's phase within 1%, moving nothing. Without the gate every planned phase after
# training was slower than none's median.
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
if(NOT DEFINED RANKS)
  set(RANKS 128)
endif()
if(NOT DEFINED EXPECT)
  set(EXPECT plan)
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

set(sum 0)
set(took)
foreach(p RANGE ${train} ${last})
  string(JSON t GET "${doc_${LB}}" phases ${p} time)
  to_micro(t_u ${t})
  string(JSON t GET "${doc_none}" phases ${p} time)
  to_micro(none_u ${t})
  set(lim ${LIMIT})
  math(EXPR block_end "${train} + 3")
  if(EXPECT STREQUAL "idle" AND p LESS block_end)
    set(lim 110) # the gate's idle block: its first phase starts skewed by the plan before
  endif()
  math(EXPR bound "${median} * ${lim} / 100")
  math(EXPR same "${none_u} * ${lim} / 100")
  if(same GREATER bound)
    set(bound ${same})
  endif()
  list(APPEND took ${t_u})
  math(EXPR sum "${sum} + ${t_u}")
  if(t_u GREATER bound)
    message(FATAL_ERROR "phase ${p}: ${LB} took ${t_u} us, over ${lim}% of none's median "
                        "phase (${median} us) and of none's phase ${p} (${none_u} us)")
  endif()
  if(EXPECT STREQUAL "idle" AND NOT p LESS block_end)
    math(EXPR hi "${none_u} * 101 / 100")
    math(EXPR lo "${none_u} * 99 / 100")
    if(t_u GREATER hi OR t_u LESS lo)
      message(FATAL_ERROR "phase ${p}: ${LB} took ${t_u} us, not none's ${none_u} us: the plan "
                          "gate did not run it without the protocol")
    endif()
  endif()
endforeach()
math(EXPR bound "${none_sum} * (100 - ${GAIN}) / 100")
if(EXPECT STREQUAL "plan" AND sum GREATER bound)
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
if(EXPECT STREQUAL "plan" AND moved EQUAL 0)
  message(FATAL_ERROR "${LB} moved no task after training: nothing was balanced")
endif()
if(EXPECT STREQUAL "idle" AND NOT moved EQUAL 0)
  message(FATAL_ERROR "${LB} moved ${moved} tasks after training: the plan gate let it plan")
endif()
list(JOIN took " " took)
message("${LB}: phases after training ${took} us (sum ${sum}, none's ${none_sum}); none's median "
        "${median} us; ${moved} tasks moved")
