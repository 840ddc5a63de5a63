# cmake -DSIM=tide-sim -DLB=greedy -DFILE=scenario.cbench -DDIR=dir -P cbench_balance.cmake
# A global strategy in the cbench loop moves objects and lowers the last iteration's max/avg
# rank load, and the mean iteration time, below those of the same run under none.
foreach(lb none ${LB})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_GLOBAL_LB=${lb} ${SIM} --platform coolmuc2
    --ranks 16 --threads 2 --cbench ${FILE} --cbench-set n=256 --cbench-set r=8
    --cbench-set lbfreq=3 --quiet --stats ${DIR}/cbench_${LB}_${lb}.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim --cbench under ${lb} failed (${rc}): ${err}")
  endif()
  file(READ ${DIR}/cbench_${LB}_${lb}.json doc)
  string(JSON max_${lb} GET "${doc}" load_max_s 7)
  string(JSON total_${lb} GET "${doc}" total_s)
  string(JSON moved_${lb} GET "${doc}" summary moved)
endforeach()
message("last iteration's max rank load: none ${max_none} s, ${LB} ${max_${LB}} s (averages "
  "equal); total ${total_none} s against ${total_${LB}} s; ${moved_${LB}} objects moved")
if(moved_${LB} EQUAL 0 OR NOT max_${LB} LESS max_none OR NOT total_${LB} LESS total_none)
  message(FATAL_ERROR "${LB} did not balance cbench's objects")
endif()
