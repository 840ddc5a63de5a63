# cmake -DSIM=tide-sim -DLB=packdrop -DFILE=out.json -P global.cmake
# One global rescheduling round on 16 ranks of Imb.3 objects: it completes, takes simulated
# time to decide, moves objects, and lowers max/avg; with --global-migrate 0 the same decision
# is made and nothing travels after it.
execute_process(COMMAND ${SIM} --platform coolmuc2 --ranks 16 --imb 3 --tasks-per-rank 8
  --task-bytes 65536 --global ${LB} --jitter 0.3:3 --stats ${FILE} --quiet
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --global ${LB} failed (${rc}): ${err}")
endif()
file(READ ${FILE} doc)
foreach(key decision_time max_before max_after moved messages)
  string(JSON ${key} GET "${doc}" ${key})
endforeach()
message("${LB}: decided in ${decision_time} s, max ${max_before} -> ${max_after}, ${moved} moved")
# if() compares decimal and exponent notation as numbers.
if(NOT max_after LESS max_before OR moved EQUAL 0 OR NOT decision_time GREATER 0
   OR messages EQUAL 0)
  message(FATAL_ERROR "${LB} did not reschedule")
endif()

execute_process(COMMAND ${SIM} --platform coolmuc2 --ranks 16 --imb 3 --tasks-per-rank 8
  --task-bytes 65536 --global ${LB} --jitter 0.3:3 --global-migrate 0 --stats ${FILE}.nomig
  --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --global ${LB} --global-migrate 0 failed (${rc}): ${err}")
endif()
file(READ ${FILE}.nomig doc)
foreach(key decision_time total_time max_after moved)
  string(JSON nomig_${key} GET "${doc}" ${key})
endforeach()
if(NOT nomig_max_after EQUAL max_after OR NOT nomig_moved EQUAL moved
   OR NOT nomig_total_time EQUAL nomig_decision_time)
  message(FATAL_ERROR "${LB} --global-migrate 0: another decision (max ${nomig_max_after}, "
    "${nomig_moved} moved) or time after it (${nomig_total_time} vs ${nomig_decision_time})")
endif()
