# The finalize verdict on real runs (docs/stats.md, "The verdict"): the same imbalanced mxm input
# (rank 0 owns most tasks and runs 2x slower) without balancing and with `react`. Without
# balancing the verdict must say that balancing is off; with react, that a substantial part
# (at least 30%) of what perfect balance would save was recovered, in the summary's time base.
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
  if(NOT out MATCHES "time ([0-9.]+) s \\(ideal [^\n]*\ntide: verdict: imbalance: perfect balance would save ([0-9]+)%[^\n]* lb=${lb} took ([0-9.]+) s, ([^\n]*)")
    message(FATAL_ERROR "lb=${lb}: no imbalance verdict in the output:\n${out}")
  endif()
  if(NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_3)
    message(FATAL_ERROR "lb=${lb}: the summary's time ${CMAKE_MATCH_1} s is not the verdict's ${CMAKE_MATCH_3} s")
  endif()
  set(save ${CMAKE_MATCH_2})
  set(rest "${CMAKE_MATCH_4}")
  message(STATUS "lb=${lb}: ${CMAKE_MATCH_0}")
  if(save LESS 20)
    message(FATAL_ERROR "lb=${lb}: the input should be imbalanced (saving ${save}%)")
  endif()
  if(lb STREQUAL "none")
    if(NOT rest MATCHES "^balancing is off")
      message(FATAL_ERROR "lb=none: ${rest}")
    endif()
  else()
    if(NOT rest MATCHES "^which recovers ([0-9]+)% of that saving" OR CMAKE_MATCH_1 LESS 30)
      message(FATAL_ERROR "lb=${lb} should recover at least 30%: ${rest}")
    endif()
  endif()
endforeach()
