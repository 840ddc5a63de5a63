# cmake -DSIM=tide-sim -DDIR=dir -P refine_threshold.cmake
# TIDE_REFINE_THRESHOLD reaches RefineLB in tide-sim as in libtide: on 16 ranks of Imb.3 objects
# (max/avg 3.6) the default 1.05 brings max/avg to about 1.07 (39 moved); 2 lets RefineLB stop
# once no rank is above twice the average: fewer objects move and the maximum stays higher.
# Fails when the knob is ignored (both runs alike) or refused.
foreach(t 1.05 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_REFINE_THRESHOLD=${t} ${SIM}
    --platform coolmuc2 --ranks 16 --imb 3 --tasks-per-rank 8 --task-bytes 65536 --global refine
    --jitter 0.3:3 --global-migrate 0 --quiet --stats ${DIR}/refine_${t}.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "TIDE_REFINE_THRESHOLD=${t}: tide-sim failed (${rc}): ${err}")
  endif()
  file(READ ${DIR}/refine_${t}.json doc)
  foreach(key max_after moved)
    string(JSON ${key}_${t} GET "${doc}" ${key})
  endforeach()
endforeach()
message("threshold 1.05 / 2: moved ${moved_1.05} / ${moved_2}, "
        "max after ${max_after_1.05} / ${max_after_2}")
# if() compares decimal and exponent notation as numbers.
if(NOT moved_2 LESS moved_1.05 OR NOT max_after_2 GREATER max_after_1.05)
  message(FATAL_ERROR "TIDE_REFINE_THRESHOLD=2 did not change RefineLB's decision")
endif()
