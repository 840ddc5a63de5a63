# cmake -DSIM=tide-sim -DDIR=dir -P replay.cmake
# Replay: a run's statistics replayed under `none` give every rank the same load and task count
# in every phase as the original run.
execute_process(COMMAND ${SIM} --ranks 12 --threads 3 --imb 2 --iters 4 --task-ms 3 --quiet
  --slow 5:2 --slow-from 2 --stats ${DIR}/replay_src.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the original run failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${SIM} --replay ${DIR}/replay_src.json --quiet
  --stats ${DIR}/replay_out.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the replay failed (${rc}): ${err}")
endif()
file(READ ${DIR}/replay_src.json a)
file(READ ${DIR}/replay_out.json b)
string(JSON threads GET "${b}" config threads)
if(NOT threads EQUAL 3)
  message(FATAL_ERROR "the replay ran ${threads} workers per rank, the original 3")
endif()
foreach(p RANGE 3)
  foreach(r RANGE 11)
    string(JSON la GET "${a}" phases ${p} L ${r})
    string(JSON lb GET "${b}" phases ${p} L ${r})
    string(JSON ta GET "${a}" phases ${p} tasks ${r})
    string(JSON tb GET "${b}" phases ${p} tasks ${r})
    # L is printed with 17 digits: the replay's sum of L/n over n tasks may differ in the last.
    string(SUBSTRING "${la}" 0 10 la)
    string(SUBSTRING "${lb}" 0 10 lb)
    if(NOT la STREQUAL lb OR NOT ta EQUAL tb)
      message(FATAL_ERROR "phase ${p} rank ${r}: L ${la} vs ${lb}, tasks ${ta} vs ${tb}")
    endif()
  endforeach()
endforeach()
