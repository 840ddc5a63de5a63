# cmake -DSIM=tide-sim -DDIR=dir -DARGS="a;b" [-DSEED=s] -P idle_turns.cmake
# --idle-turns skip (the default: the comm actor skips the idle turns at which ws's quiet_until
# says progress does nothing) against every (each turn runs, as in libtide), ws: both runs
# complete (every task exactly once), make the same moves, phase by phase and pair by pair, and
# end within 0.03% in time (simultaneous events may be taken in another order); every skips
# nothing and skip skips turns. A hint that is late by 100 us changes the moves here.
include(${CMAKE_CURRENT_LIST_DIR}/micro.cmake)
if(NOT DEFINED SEED)
  set(SEED 1)
endif()
foreach(mode every skip)
  set(stats ${DIR}/idle_${mode}.json)
  set(moves_${mode} ${DIR}/idle_${mode}.moves)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=ws TIDE_SEED=${SEED} ${SIM} ${ARGS}
    --threads 4 --iters 4 --tasks-per-rank 32 --task-ms 10 --idle-turns ${mode}
    --stats ${stats} --moves ${moves_${mode}} --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim --idle-turns ${mode} failed (${rc}): ${err}")
  endif()
  file(READ ${stats} doc)
  string(JSON t_${mode} GET "${doc}" summary time_total)
  string(JSON moved_${mode} GET "${doc}" summary tasks_offloaded)
  string(JSON skipped_${mode} GET "${doc}" config sim idle_turns_skipped)
endforeach()
file(READ ${moves_every} a)
file(READ ${moves_skip} b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "--idle-turns skip moved other tasks than every (${moved_skip} against "
                      "${moved_every}; ${moves_skip}, ${moves_every})")
endif()
if(moved_every EQUAL 0)
  message(FATAL_ERROR "ws moved no task: nothing to compare")
endif()
if(NOT skipped_every EQUAL 0 OR skipped_skip LESS 1000)
  message(FATAL_ERROR "turns skipped: every ${skipped_every} (expected 0), skip "
                      "${skipped_skip} (expected over 1000)")
endif()
within(close ${t_every} ${t_skip} 3 10000)
if(NOT close)
  message(FATAL_ERROR "--idle-turns skip took ${t_skip} s, every ${t_every} s (over 0.03% apart)")
endif()
message("ws: ${moved_skip} tasks moved alike; ${skipped_skip} turns skipped; time ${t_skip} s "
        "skip, ${t_every} s every")
