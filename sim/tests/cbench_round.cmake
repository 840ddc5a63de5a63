# cmake -DSIM=tide-sim -DFILE=scenario.cbench -DDIR=dir -P cbench_round.cmake
# --cbench-mode round: one greedy round over the file's objects (iteration 1's loads, initmap's
# placement) takes simulated time, moves objects and lowers max/avg.
execute_process(COMMAND ${SIM} --ranks 4 --threads 2 --cbench ${FILE} --cbench-mode round
  --global greedy --quiet --stats ${DIR}/round.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --cbench-mode round failed (${rc}): ${err}")
endif()
file(READ ${DIR}/round.json doc)
foreach(key objects decision_time total_time max_before max_after moved)
  string(JSON ${key} GET "${doc}" ${key})
endforeach()
message("${objects} objects: decided in ${decision_time} s, max ${max_before} -> ${max_after}, "
  "${moved} moved")
if(NOT objects EQUAL 64 OR moved EQUAL 0 OR NOT max_after LESS max_before
   OR NOT total_time GREATER decision_time)
  message(FATAL_ERROR "the round over cbench's objects did not reschedule them")
endif()
