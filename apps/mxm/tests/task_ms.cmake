# --task-ms gives the time of a --size task, and --sizes scale from it with n^3 whatever their
# order: one task of size 40 with --size 20 --task-ms 5 sleeps 5 x 2^3 = 40 ms, which the
# TIDE_STATS document shows as the phase's load.
# Usage: cmake -DMPIEXEC=... -DMXM=... -DFILE=stats.json -P task_ms.cmake
foreach(order "--size;20;--sizes;40" "--sizes;40;--size;20")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TIDE_STATS=${FILE} TIDE_THREADS=1
    ${MPIEXEC} -n 1 ${MXM} --kernel sleep --task-ms 5 --tasks 1 --iters 1 ${order}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mxm failed (${rc}):\n${out}${err}")
  endif()
  file(READ ${FILE} doc)
  string(JSON load GET "${doc}" phases 0 L 0)
  if(load LESS 0.035 OR load GREATER 1.0)
    message(FATAL_ERROR "${order}: the size-40 task took ${load} s, expected 0.040")
  endif()
  message("${order}: ${load} s")
endforeach()
