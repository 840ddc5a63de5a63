# cmake -DCORE=tide_replay_core -DSIM=tide-sim -DREC=run.json -DLB=proact -DDIR=dir
#   [-DSIM_ENV=NAME=VALUE] [-DEXPECT=differ] -P equiv.cmake
# Equivalence of the engine core's two drivers: a recorded real run replayed through the core
# alone, as libtide drives it (tide_replay_core), and through tide-sim --replay give the same
# decisions, line by line (tide_core_decisions.h): every rank's prediction per phase, and every
# phase-start plan's moves. The core's replay must also predict what the recorded run's libtide
# predicted (--check-recorded: its L_pred, where the document has them). SIM_ENV perturbs tide-sim's side only; with EXPECT=differ the test
# then requires the decisions to differ (the comparison can fail).
set(env TIDE_LB=${LB} TIDE_PRED_TRAIN=6 TIDE_PRED_WINDOW=2)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${CORE} --check-recorded ${REC}
  OUTPUT_FILE ${DIR}/equiv_${LB}_core.txt RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide_replay_core failed or predicted otherwise than the run (${rc}): ${err}")
endif()
# --iters: a replay plays at most --iters phases; --task-bytes 0: plans cost no transfer, as in
# tide_replay_core (the bandwidth a plan sees is a measurement of timing).
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${SIM_ENV} ${SIM} --replay ${REC}
  --iters 100000 --task-bytes 0 --quiet --decisions ${DIR}/equiv_${LB}_sim.txt
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tide-sim --replay failed (${rc}): ${err}")
endif()
file(STRINGS ${DIR}/equiv_${LB}_core.txt core)
file(STRINGS ${DIR}/equiv_${LB}_sim.txt simd)
# Not two empty answers: the model served and some plan moved tasks.
list(FILTER core INCLUDE REGEX "^pred .* rank [01]$|^plan .*:")
list(LENGTH core served)
if(served EQUAL 0)
  message(FATAL_ERROR "the core's replay neither predicted with the model nor planned a move")
endif()
file(STRINGS ${DIR}/equiv_${LB}_core.txt core)
list(LENGTH core n)
list(LENGTH simd m)
set(first "")
if(NOT n EQUAL m)
  set(first "${n} lines from the core, ${m} from tide-sim")
else()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    list(GET core ${i} a)
    list(GET simd ${i} b)
    if(NOT a STREQUAL b)
      set(first "line ${i}: core '${a}', tide-sim '${b}'")
      break()
    endif()
  endforeach()
endif()
if(EXPECT STREQUAL "differ")
  if(first STREQUAL "")
    message(FATAL_ERROR "tide-sim with ${SIM_ENV} decided as the core without it")
  endif()
  message(STATUS "differ as expected: ${first}")
elseif(NOT first STREQUAL "")
  message(FATAL_ERROR "the drivers decided differently: ${first}")
endif()
