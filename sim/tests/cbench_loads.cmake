# cmake -DSIM=tide-sim -DCBENCH=cbench -DDIR=dir -P cbench_loads.cmake
# The loads the simulator uses are cbench's evaluator's: for a small file (8 objects, 3
# iterations, 4 ranks of 1 worker, the block mapping, a load unit of one second so that the
# report holds whole units), every object's load from `cbench --eval` is summed per rank, and
# each iteration's max and average rank load must be the simulator's.
set(load "t * 3 + (i * i) % 5 + (t > 4 ? 7 : 1)")
file(WRITE ${DIR}/loads.cbench "n = 8\nr = 3\nload_unit = 1000000\nlbfreq = 0\nload = ${load}\n")
execute_process(COMMAND ${SIM} --ranks 4 --threads 1 --cbench ${DIR}/loads.cbench --quiet
  --stats ${DIR}/loads.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --cbench failed (${rc}): ${err}")
endif()
file(READ ${DIR}/loads.json doc)
foreach(i 1 2 3)
  foreach(r 0 1 2 3)
    set(sum_${r} 0)
  endforeach()
  foreach(t RANGE 7)
    execute_process(COMMAND ${CBENCH} --eval "${load}" --t ${t} --i ${i}
      OUTPUT_VARIABLE v RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cbench --eval failed at t=${t}, i=${i}")
    endif()
    math(EXPR r "${t} * 4 / 8") # initmap's default (t*p)/n, p = 4 units on 4 ranks
    math(EXPR sum_${r} "${sum_${r}} + ${v}")
  endforeach()
  set(max 0)
  set(total 0)
  foreach(r 0 1 2 3)
    if(sum_${r} GREATER max)
      set(max ${sum_${r}})
    endif()
    math(EXPR total "${total} + ${sum_${r}}")
  endforeach()
  # the average as %.9g prints total / 4
  math(EXPR whole "${total} / 4")
  math(EXPR quarter "${total} % 4")
  set(frac_1 ".25")
  set(frac_2 ".5")
  set(frac_3 ".75")
  set(avg "${whole}${frac_${quarter}}")
  math(EXPR k "${i} - 1")
  string(JSON sim_max GET "${doc}" load_max_s ${k})
  string(JSON sim_avg GET "${doc}" load_avg_s ${k})
  message("iteration ${i}: cbench --eval: max ${max}, avg ${avg}; tide-sim: max ${sim_max}, "
    "avg ${sim_avg}")
  if(NOT sim_max STREQUAL max OR NOT sim_avg STREQUAL avg)
    message(FATAL_ERROR "iteration ${i}: the simulator's rank loads are not cbench's")
  endif()
endforeach()
