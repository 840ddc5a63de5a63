# cmake -DSIM=tide-sim -DKNOBS=tide-knobs -DENV="K=V;..." -P knob_same.cmake
# tide-sim reads Tide's knobs with libtide's tables: for the same environment it fails as
# libtide's own check does (tide-knobs --check, tide_init's reader without MPI): exit 2 and the
# same line, word for word, after tide-sim's "tide-sim: ".
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${KNOBS} --check
  RESULT_VARIABLE rc_lib ERROR_VARIABLE lib)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${SIM} --ranks 2 --iters 1 --quiet
  RESULT_VARIABLE rc_sim OUTPUT_VARIABLE out ERROR_VARIABLE sim)
string(STRIP "${lib}" lib)
string(STRIP "${out}${sim}" sim)
message("libtide:  ${lib}\ntide-sim: ${sim}")
if(NOT rc_lib EQUAL 2 OR NOT rc_sim EQUAL 2)
  message(FATAL_ERROR "exit codes: libtide's check ${rc_lib}, tide-sim ${rc_sim}; expected 2, 2")
endif()
if(NOT sim STREQUAL "tide-sim: ${lib}")
  message(FATAL_ERROR "tide-sim's line is not libtide's")
endif()
