# The final state must not depend on where sections ran. Uniform grid (default): 1 rank, 3 ranks
# without balancing and 3 ranks with every task offloaded (TIDE_LB=random, fraction 1) print the
# same checksum. With -DNOISE=<options> (e.g. "--jitter;0.3:3") the runs after the first, the
# reference, are noisy: a slowed task repeats its update, which must not change the state either.
# With -DNP=n the adaptive mesh (refined, coarsened and repartitioned while it runs) on n ranks,
# under every TIDE_LB mode (proact with both offload kinds), must print the 1-rank checksum; the
# sleep kernel's per-class costs make the ranks' loads differ, so the strategies move tasks, and
# at least one mode besides random must have offloaded some.
# Usage: cmake -DMPIEXEC=... -DPROXY=... -DSTATS=file.json [-DNOISE=...] [-DNP=n] -P same_checksum.cmake
if(DEFINED NP)
  # 8 sections per rank and a costly coast: with 4 sections and 5,40,160 us the ranks' loads were
  # within 7% on a quiet machine and no strategy moved a task at 4 ranks.
  set(args --depth 10 --min-depth 5 --sections-per-rank 8 --steps 16 --adapt-every 4
    --repartition-every 3 --kernel sleep --cost-us 5,40,1000 --verify)
  set(runs "1,none,packed" "${NP},none,packed" "${NP},ws,packed" "${NP},react,packed"
    "${NP},rep,packed" "${NP},react_rep,packed" "${NP},proact,rr" "${NP},proact,packed"
    "${NP},proact_react,packed" "${NP},random,packed")
else()
  set(args --depth 9 --sections-per-rank 5 --steps 40 --kernel compute --verify)
  set(runs "1,none,packed" "3,none,packed" "3,random,packed")
endif()
set(ENV{TIDE_THREADS} 1)
set(ENV{TIDE_STATS} ${STATS})
set(ENV{TIDE_RANDOM_FRACTION} 1) # read by TIDE_LB=random only
set(ref "")
set(moved_by_strategies 0)
foreach(run IN LISTS runs)
  string(REPLACE "," ";" fields "${run}")
  list(GET fields 0 np)
  list(GET fields 1 lb)
  list(GET fields 2 offload)
  set(ENV{TIDE_LB} ${lb})
  set(ENV{TIDE_OFFLOAD} ${offload})
  set(noise "")
  if(NOT ref STREQUAL "")
    set(noise ${NOISE})
  endif()
  execute_process(COMMAND ${MPIEXEC} -n ${np} ${PROXY} ${args} ${noise} RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "verified")
    message(FATAL_ERROR "run ${np} ranks TIDE_LB=${lb} failed (${rc}):\n${out}\n${err}")
  endif()
  string(REGEX MATCH "checksum ([0-9a-f]+)" m "${out}")
  set(sum ${CMAKE_MATCH_1})
  file(READ ${STATS} stats)
  string(JSON moved GET "${stats}" summary tasks_offloaded)
  string(JSON tasks GET "${stats}" summary tasks)
  message(STATUS "${np} ranks TIDE_LB=${lb} TIDE_OFFLOAD=${offload} ${noise}: checksum ${sum}, "
    "${moved} of ${tasks} tasks offloaded")
  if(lb STREQUAL "random" AND NOT moved EQUAL tasks)
    message(FATAL_ERROR "TIDE_LB=random with fraction 1 offloaded ${moved} of ${tasks} tasks")
  elseif(NOT lb STREQUAL "random")
    math(EXPR moved_by_strategies "${moved_by_strategies} + ${moved}")
  endif()
  if(ref STREQUAL "")
    set(ref ${sum})
  elseif(NOT sum STREQUAL ref)
    message(FATAL_ERROR "checksum ${sum} (${np} ranks, TIDE_LB=${lb} ${noise}) differs from ${ref}\n${out}")
  endif()
endforeach()
if(DEFINED NP AND moved_by_strategies EQUAL 0)
  message(FATAL_ERROR "no strategy offloaded a task on ${NP} ranks: the test proves nothing")
endif()
