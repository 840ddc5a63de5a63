# The finalize verdict on real runs (docs/stats.md, "The verdict"): the same imbalanced mxm input
# (rank 0 owns most tasks and runs 2x slower) without balancing and with `react`. Without
# balancing the verdict must say that balancing is off; with react, what part of the saving was
# recovered, in the summary's time base, with the arithmetic right: recovered = (estimate - time)
# / (estimate - ideal) from the seconds the verdict prints. How much react recovers is not checked:
# it is a wall-time figure, and a loaded machine moved it from 55% to 19% (mxm's own tests check
# that react balances, from the loads it placed).
# cmake -DMPIEXEC=... -DMXM=... -P verdict.cmake

set(ENV{TIDE_QUIET} 0)
foreach(lb none react)
  set(ENV{TIDE_LB} ${lb})
  execute_process(COMMAND ${MPIEXEC} -n 3 ${MXM} --verify --kernel sleep --task-ms 4 --size 40
    --iters 6 --imb 3 --tasks-per-rank 6 --slow 0:2
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lb=${lb}: exit ${rc}\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "time ([0-9.]+) s \\(ideal [^\n]*\ntide: verdict: imbalance: perfect balance would save ([0-9]+)% of the ([0-9.]+) s [^\n]*\\(ideal ([0-9.]+) s\\); lb=${lb} took ([0-9.]+) s, ([^\n]*)")
    message(FATAL_ERROR "lb=${lb}: no imbalance verdict in the output:\n${out}")
  endif()
  if(NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_5)
    message(FATAL_ERROR "lb=${lb}: the summary's time ${CMAKE_MATCH_1} s is not the verdict's ${CMAKE_MATCH_5} s")
  endif()
  set(save ${CMAKE_MATCH_2})
  set(estimate ${CMAKE_MATCH_3})
  set(ideal ${CMAKE_MATCH_4})
  set(took ${CMAKE_MATCH_5})
  set(rest "${CMAKE_MATCH_6}")
  message(STATUS "lb=${lb}: ${CMAKE_MATCH_0}")
  if(save LESS 20)
    message(FATAL_ERROR "lb=${lb}: the input should be imbalanced (saving ${save}%)")
  endif()
  if(lb STREQUAL "none")
    if(NOT rest MATCHES "^balancing is off")
      message(FATAL_ERROR "lb=none: ${rest}")
    endif()
  else()
    if(rest MATCHES "^which recovers ([0-9]+)% of that saving by moving ([0-9]+) tasks")
      set(pct ${CMAKE_MATCH_1})
      if(CMAKE_MATCH_2 EQUAL 0)
        message(FATAL_ERROR "lb=${lb}: moved no task: ${rest}")
      endif()
      # The printed seconds are rounded to 1 ms: allow the percentage that rounding can shift.
      string(REPLACE "." "" e "${estimate}")
      string(REPLACE "." "" t "${took}")
      string(REPLACE "." "" i "${ideal}")
      math(EXPR want "(${e} - ${t}) * 100 / (${e} - ${i})")
      math(EXPR diff "${pct} - ${want}")
      if(diff GREATER 2 OR diff LESS -2)
        message(FATAL_ERROR "lb=${lb}: recovers ${pct}%, but (${estimate} - ${took}) / (${estimate} - ${ideal}) = ${want}%")
      endif()
    elseif(NOT rest MATCHES "^no less than that estimate")
      message(FATAL_ERROR "lb=${lb}: neither a recovered share nor 'no less than that estimate': ${rest}")
    endif()
  endif()
endforeach()
