# cmake -DSIM=tide-sim -DDIR=dir -P gate_noise.cmake
# proact on phases of microseconds (2 ranks, 4 tasks of 1 us each, 30% of them 3x slower: seeded
# noise): the first phase's protocol costs more than any plan could gain, so the plan gate goes
# idle; the imbalance then jumps between 0 and a few microseconds, growing 1.5-fold again and
# again, and the gate must start a probe only when it exceeds what the protocol alone cost
# (tide_core_proto.h, "The plan gate"). It probed on every such jump before: 55 of 300 phases
# through the protocol against 23. Deterministic; about 1 s.
set(stats ${DIR}/gate_noise.json)
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=proact
  ${SIM} --platform local --ranks 2 --threads 1 --tasks 4,4 --task-ms 0.001 --task-bytes 8
  --result-bytes 8 --jitter 0.3:3 --iters 300 --quiet --stats ${stats}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim failed (${rc}): ${err}")
endif()
file(READ ${stats} doc)
string(REGEX MATCHALL "\"protocol\": true" on "${doc}")
string(REGEX MATCHALL "\"protocol\": (true|false)" all "${doc}")
list(LENGTH on n_on)
list(LENGTH all n_all)
if(NOT n_all EQUAL 300)
  message(FATAL_ERROR "${n_all} phases in ${stats}, expected 300")
endif()
if(n_on GREATER 30)
  message(FATAL_ERROR "${n_on} of 300 phases ran the protocol (expected at most 30): the plan gate "
                      "probed on imbalances below what its protocol alone cost")
endif()
message("${n_on} of 300 phases ran the protocol")
