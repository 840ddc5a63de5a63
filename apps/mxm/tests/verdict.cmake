# The finalize verdict on real runs (docs/stats.md, "The verdict"): the same imbalanced mxm input
# (rank 0 owns most tasks and runs 2x slower) without balancing and with `react`. Without
# balancing the verdict must say nothing was recovered; with react, that a substantial part
# (at least 30%) of what perfect balance would save was recovered.
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
  if(NOT out MATCHES "tide: verdict: imbalance: perfect balance would save ([0-9]+)%[^\n]* lb=${lb} ([^\n]*)")
    message(FATAL_ERROR "lb=${lb}: no imbalance verdict in the output:\n${out}")
  endif()
  set(save ${CMAKE_MATCH_1})
  set(rest "${CMAKE_MATCH_2}")
  message(STATUS "lb=${lb}: ${CMAKE_MATCH_0}")
  if(save LESS 20)
    message(FATAL_ERROR "lb=${lb}: the input should be imbalanced (saving ${save}%)")
  endif()
  if(lb STREQUAL "none")
    if(NOT rest MATCHES "^recovered none of that")
      message(FATAL_ERROR "lb=none recovered something: ${rest}")
    endif()
  else()
    if(NOT rest MATCHES "^recovered ([0-9]+)% of that" OR CMAKE_MATCH_1 LESS 30)
      message(FATAL_ERROR "lb=${lb} should recover at least 30%: ${rest}")
    endif()
  endif()
endforeach()
