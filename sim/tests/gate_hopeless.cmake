# cmake -DSIM=tide-sim -DDIR=dir -P gate_hopeless.cmake
# proact at 1024 ranks on 1 GbE (the Fig. 4 study's workload, docs/sim.md): the first phase, on
# proact's reactive fallback, spends 3.7 ms in its protocol beyond its workers' 2.6 ms against an
# imbalance of 1.7 ms, so no plan can beat a phase without the protocol: the plan gate must run
# every later phase without it (tide_core_proto.h, "The plan gate"), where it used to sample two
# plans first (1.4x none's phase each). Deterministic; about 10 s.
set(stats ${DIR}/gate_hopeless_1024.json)
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_LB=proact TIDE_PRED_TRAIN=6 TIDE_PRED_WINDOW=2
  ${SIM} --platform ethernet --ranks 1024 --threads 14 --tasks-per-rank 128 --samoa 18
  --samoa-steps 400 --samoa-cost 4,50,200 --iters 4 --quiet --stats ${stats}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim failed (${rc}): ${err}")
endif()
file(READ ${stats} doc)
set(kinds)
foreach(p RANGE 3)
  string(JSON protocol GET "${doc}" phases ${p} protocol)
  list(APPEND kinds ${protocol})
endforeach()
if(NOT kinds STREQUAL "ON;OFF;OFF;OFF")
  message(FATAL_ERROR "phases' protocol flags ${kinds}, expected ON;OFF;OFF;OFF: the gate ran "
                      "protocol phases after one whose protocol alone cost more than any plan gains")
endif()
message("protocol per phase: ${kinds}")
