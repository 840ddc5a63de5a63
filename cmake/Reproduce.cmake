# One ctest per reproduction script (scripts/reproduce.d/*, the *.sh and *.py helpers excepted):
# reproduce_tiny_<NAME> runs it at --tiny size against this build and checks its CSV, PNG and verdict line
# (cmake/reproduce_tiny.cmake). A new script is tested without a new line here. Labelled
# no_sanitize: they time MPI runs of the whole stack, which the ASan build makes too slow.
file(GLOB TIDE_REPRODUCE_SCRIPTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/scripts/reproduce.d/*)
foreach(script ${TIDE_REPRODUCE_SCRIPTS})
  get_filename_component(name ${script} NAME)
  if(name MATCHES "\\.(sh|py)$" OR IS_DIRECTORY ${script})
    continue()
  endif()
  add_test(NAME reproduce_tiny_${name} COMMAND ${CMAKE_COMMAND}
    -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/scripts/reproduce -DNAME=${name}
    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reproduce-tiny/${name} -DBUILD=${CMAKE_BINARY_DIR}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/reproduce_tiny.cmake)
  set_tests_properties(reproduce_tiny_${name} PROPERTIES ENVIRONMENT "${TIDE_MPI_TEST_ENV}"
    TIMEOUT 180 PROCESSORS 2 LABELS "reproduce;no_sanitize")
endforeach()
