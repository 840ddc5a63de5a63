# cmake -DSIM=tide-sim -DFILE=scenario.cbench -DDIR=dir -P cbench_once.cmake
# The cbench loop's exactly-once check: a run with rescheduling and messages passes it (exit 0,
# no failure in the report, every iteration reported, messages routed); an object made to run
# twice in iteration 1 (--cbench-test-twice) makes the simulator exit 3 naming it.
set(args --ranks 4 --threads 2 --cbench ${FILE} --cbench-set r=6 --cbench-set lbfreq=2)
execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_GLOBAL_LB=greedy ${SIM} ${args} --quiet
  --stats ${DIR}/cbench_once.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --cbench failed (${rc}): ${err}")
endif()
file(READ ${DIR}/cbench_once.json doc)
string(JSON failures GET "${doc}" summary failures)
string(JSON messages GET "${doc}" summary messages)
string(JSON reschedules GET "${doc}" summary reschedules)
string(JSON iterations LENGTH "${doc}" iteration_s)
message("failures ${failures}, messages ${messages}, reschedules ${reschedules}, iterations "
  "${iterations}")
if(NOT failures EQUAL 0 OR NOT iterations EQUAL 6 OR NOT reschedules EQUAL 3 OR messages EQUAL 0)
  message(FATAL_ERROR "the loop did not run 6 checked iterations with 3 reschedules and messages")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_GLOBAL_LB=greedy ${SIM} ${args} --quiet
  --cbench-test-twice 5 RESULT_VARIABLE rc ERROR_VARIABLE err)
message("${err}")
if(NOT rc EQUAL 3 OR NOT err MATCHES "object 5 ran 2 times in iterations 1..1")
  message(FATAL_ERROR "an object run twice was not caught (exit ${rc})")
endif()
