# cmake -DSIM=tide-sim -DLB=proact|proact_react -DDIR=dir -P slow_link.cmake
# Transfer-aware plans on a slow link (issue 26), the simulated twin of mxm_slow_link_*_4: rank 0
# holds 60 of 78 tasks of 20 ms and its task messages leave at 2 MB/s (TIDE_THROTTLE_*), so a
# 240 kB task takes 0.12 s to leave while rank 0's phase without balancing lasts 0.6 s.
# - every phase of LB takes at most 1.05 x none's median phase: in the first TIDE_PRED_TRAIN
#   phases LB reacts and only the safety net (reclaim) keeps the queued moves from leaving one
#   by one for 6 s; after them the plan must keep only the moves the link can carry;
# - send_bw: 0 on a rank until its first task message, > 0 on rank 0 from the first planned
#   phase on (a plan's burst measures it); sent_last > 0 exactly in the phases in which the
#   rank sent tasks;
# - every planned phase after the first reports plan_transfer > 0 on rank 0 (its moves take
#   link time; the first plan has no measured rate yet and moves freely);
# - proact: over the planned phases after the first rank 0 takes back fewer tasks than leave (a
#   plan that ignored the link, e.g. send_bw missing from the status, queues 40 and takes back
#   35 or more); this check is proact's only, as proact_react's rounds may add moves;
# - proact: --idle-turns every makes the same moves and takes back the same tasks (the
#   comm actor's skipped turns miss no reclaim).
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
set(train 6)
set(iters 10)
set(env TIDE_THREADS=2 TIDE_PRED_TRAIN=${train} TIDE_PRED_WINDOW=2 TIDE_THROTTLE_RANK=0
  TIDE_THROTTLE_BW=2M)
set(args --ranks 4 --tasks 60,6,6,6 --task-ms 20 --iters ${iters} --task-bytes 240000
  --result-bytes 80000 --quiet)
set(runs none ${LB})
if(LB STREQUAL "proact")
  list(APPEND runs every)
endif()
foreach(run ${runs})
  set(lb ${run})
  set(extra)
  if(run STREQUAL "every")
    set(lb ${LB})
    set(extra --idle-turns every)
  endif()
  set(stats ${DIR}/${LB}_${run}.json)
  set(moves_${run} ${DIR}/${LB}_${run}.moves)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=${lb} ${env} ${SIM} ${args} ${extra}
    --stats ${stats} --moves ${moves_${run}} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim ${lb} ${extra} failed (${rc}): ${err}")
  endif()
  file(READ ${stats} doc_${run})
endforeach()

# none's median phase (its phases are alike: the median is the middle one, sorted)
set(times)
math(EXPR last "${iters} - 1")
foreach(p RANGE ${last})
  string(JSON t GET "${doc_none}" phases ${p} time)
  to_micro(t_u ${t})
  list(APPEND times "${t_u}")
endforeach()
list(SORT times COMPARE NATURAL)
math(EXPR mid "${iters} / 2")
list(GET times ${mid} median)
math(EXPR limit "${median} * 105 / 100")

set(doc "${doc_${LB}}")
set(took)
set(sent 0)
set(reclaimed 0)
foreach(p RANGE ${last})
  string(JSON t GET "${doc}" phases ${p} time)
  to_micro(t_u ${t})
  math(EXPR t_ms "${t_u} / 1000")
  list(APPEND took ${t_ms})
  if(t_u GREATER limit)
    message(FATAL_ERROR "phase ${p}: ${LB} took ${t} s, over 1.05 x none's median phase "
                        "(${median} us)")
  endif()
  foreach(r RANGE 3)
    string(JSON off GET "${doc}" phases ${p} offloaded ${r})
    string(JSON bw GET "${doc}" phases ${p} send_bw ${r})
    string(JSON sl GET "${doc}" phases ${p} sent_last ${r})
    if(off GREATER 0)
      set(measured_${r} ON)
    endif()
    # A burst of moves measures the drain rate (tide_drain, tide_plan.h): the throttled rank 0's
    # plans make one in every planned phase. Before them, and on the other ranks, moves leave
    # one by one and measure nothing.
    if(r EQUAL 0 AND p GREATER_EQUAL train AND bw STREQUAL "0")
      message(FATAL_ERROR "phase ${p}: rank ${r} has sent tasks but send_bw 0")
    endif()
    if(NOT measured_${r} AND NOT bw STREQUAL "0")
      message(FATAL_ERROR "phase ${p}: rank ${r} has sent no task but send_bw ${bw}")
    endif()
    if((off GREATER 0) AND (sl STREQUAL "0" OR sl MATCHES "^-"))
      message(FATAL_ERROR "phase ${p}: rank ${r} sent ${off} tasks but sent_last is ${sl}")
    endif()
    if(off EQUAL 0 AND NOT sl STREQUAL "0")
      message(FATAL_ERROR "phase ${p}: rank ${r} sent no task but sent_last is ${sl}")
    endif()
  endforeach()
  if(p GREATER_EQUAL train)
    # The first plan has no burst measured yet (its moves are free); it measures one.
    string(JSON plan GET "${doc}" phases ${p} plan_transfer 0)
    if(p GREATER train AND (plan STREQUAL "0" OR plan MATCHES "^-"))
      message(FATAL_ERROR "phase ${p}: rank 0's plan_transfer is ${plan}: the plan gave its "
                          "moves no link time")
    endif()
    if(p GREATER train) # the plans made with a measured rate
      string(JSON off GET "${doc}" phases ${p} offloaded 0)
      string(JSON rec GET "${doc}" phases ${p} reclaimed 0)
      math(EXPR sent "${sent} + ${off}")
      math(EXPR reclaimed "${reclaimed} + ${rec}")
    endif()
  endif()
endforeach()
if(NOT measured_0)
  message(FATAL_ERROR "rank 0 never sent a task: nothing was balanced")
endif()
if(LB STREQUAL "proact")
  if(NOT reclaimed LESS sent)
    message(FATAL_ERROR "planned phases after the first: rank 0 took back ${reclaimed} tasks "
                        "and sent ${sent}: the plans moved more than the link carries")
  endif()
  file(READ ${moves_${LB}} a)
  file(READ ${moves_every} b)
  foreach(run ${LB} every)
    set(rec_${run})
    foreach(p RANGE ${last})
      string(JSON rec GET "${doc_${run}}" phases ${p} reclaimed)
      string(APPEND rec_${run} "${rec}")
    endforeach()
  endforeach()
  if(NOT a STREQUAL b OR NOT rec_${LB} STREQUAL rec_every)
    message(FATAL_ERROR "--idle-turns skip moved or took back other tasks than every "
                        "(${moves_${LB}}, ${moves_every})")
  endif()
endif()
list(JOIN took " " took)
math(EXPR median_ms "${median} / 1000")
message("${LB}: phases ${took} ms; none's median ${median_ms} ms; planned phases after the first: rank 0 sent "
        "${sent} tasks, took back ${reclaimed}")
