# cmake -DSIM=tide-sim -DDIR=dir -P samoa.cmake
# The AMR-like workload (--samoa): on 16 ranks x 8 sections, every task runs and completes exactly
# once (the simulator exits 3 otherwise) and every phase counts all 128; the lake moves, so the
# heaviest rank is not the same in the first and the last phase; an exact-prediction proact run
# moves tasks and lowers R_imb below none's.
set(args --platform coolmuc2 --ranks 16 --threads 4 --tasks-per-rank 8 --samoa 12
  --samoa-steps 100 --samoa-cost 4,50,200 --iters 6 --pred exact --quiet)
foreach(lb none proact)
  execute_process(COMMAND ${SIM} ${args} --lb ${lb} --stats ${DIR}/samoa_${lb}.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim --samoa --lb ${lb} failed (${rc}): ${err}")
  endif()
  file(READ ${DIR}/samoa_${lb}.json doc_${lb})
  string(JSON R_${lb} GET "${doc_${lb}}" summary R_imb)
  string(JSON moved_${lb} GET "${doc_${lb}}" summary tasks_offloaded)
endforeach()
# Per phase: all tasks counted, and the heaviest rank of phase 1 and phase 6.
foreach(p 0 5)
  set(total 0)
  set(max -1)
  foreach(r RANGE 15)
    string(JSON n GET "${doc_none}" phases ${p} tasks ${r})
    string(JSON L GET "${doc_none}" phases ${p} L ${r})
    math(EXPR total "${total} + ${n}")
    if(L GREATER max)
      set(max ${L})
      set(heavy_${p} ${r})
    endif()
  endforeach()
  if(NOT total EQUAL 128)
    message(FATAL_ERROR "phase ${p}: ${total} tasks counted, not 128")
  endif()
endforeach()
message("heaviest rank: ${heavy_0} in phase 1, ${heavy_5} in phase 6; R_imb none ${R_none}, "
  "proact ${R_proact} (${moved_proact} moved)")
if(heavy_0 EQUAL heavy_5)
  message(FATAL_ERROR "the lake did not move: rank ${heavy_0} is the heaviest in both phases")
endif()
if(moved_proact EQUAL 0 OR NOT R_proact LESS R_none)
  message(FATAL_ERROR "proact did not balance the samoa workload")
endif()
# The sections carry their dry, wet and coast cells as task features: with the default `auto`
# model (no --pred exact) the task model fits and serves predictions.
list(REMOVE_ITEM args --pred exact)
execute_process(COMMAND ${SIM} ${args} --lb proact --stats ${DIR}/samoa_auto.json
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --samoa --lb proact (auto model) failed (${rc}): ${err}")
endif()
file(READ ${DIR}/samoa_auto.json doc_auto)
string(JSON served_task GET "${doc_auto}" summary pred_sources task)
message("auto model: ${served_task} rank-phases served by the task model")
if(NOT served_task GREATER 0)
  message(FATAL_ERROR "the samoa tasks' features reached no task model (pred_sources.task 0)")
endif()
