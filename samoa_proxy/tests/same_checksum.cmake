# The final state must not depend on where sections ran. Uniform grid (--uniform): 1 rank, 3 ranks
# without balancing and 3 ranks with every task offloaded (TIDE_LB=random, fraction 1) print the
# same checksum. With -DNOISE=<options> (e.g. "--jitter;0.3:3") the runs after the first, the
# reference, are noisy: a slowed task repeats its update, which must not change the state either.
# With -DNP=n the adaptive mesh (refined, coarsened and repartitioned while it runs) on n ranks,
# under every TIDE_LB mode (proact with both offload kinds), must print the 1-rank checksum; the
# sleep kernel's per-class costs make the ranks' loads differ, so the strategies move tasks, and
# at least one mode besides random must have offloaded some.
# With -DNP=n -DLBS=<strategies> the run a user starts first, samoa_proxy with no options, on 1,
# 2 and n ranks without balancing and on n ranks under none, random and every strategy of LBS:
# every run must adapt its mesh (its summary counts refined and coarsened cells, and each
# adaptation's line adds up: cells = before + refined - coarsened), conserve mass (drift <=
# 1e-12) and print the 1-rank checksum; no task need move (its phases are too short to balance).
# Usage: cmake -DMPIEXEC=... -DPROXY=... -DSTATS=file.json [-DNOISE=...] [-DNP=n [-DLBS=...]]
#          -P same_checksum.cmake
if(DEFINED LBS)
  set(args "")
  set(runs "1,none,packed" "2,none,packed" "${NP},random,packed")
  foreach(lb none ${LBS})
    list(APPEND runs "${NP},${lb},packed")
  endforeach()
elseif(DEFINED NP)
  # 8 sections per rank and a costly coast: with 4 sections and 5,40,160 us the ranks' loads were
  # within 7% on a quiet machine and no strategy moved a task at 4 ranks.
  set(args --depth 10 --min-depth 5 --sections-per-rank 8 --steps 16 --adapt-every 4
    --repartition-every 3 --kernel sleep --cost-us 5,40,1000 --verify)
  set(runs "1,none,packed" "${NP},none,packed" "${NP},ws,packed" "${NP},react,packed"
    "${NP},rep,packed" "${NP},react_rep,packed" "${NP},proact,rr" "${NP},proact,packed"
    "${NP},proact_react,packed" "${NP},random,packed")
else()
  set(args --depth 9 --uniform --sections-per-rank 5 --steps 40 --kernel compute --verify)
  set(runs "1,none,packed" "3,none,packed" "3,random,packed")
endif()
# The default run's own checks: it adapted, every adaptation's counts add up, and mass is kept.
function(check_default_run out what)
  if(NOT out MATCHES "the adaptations refined ([0-9]+) cells and coarsened ([0-9]+) pairs")
    message(FATAL_ERROR "${what}: the default run did not adapt its mesh:\n${out}")
  endif()
  if(CMAKE_MATCH_1 EQUAL 0 OR CMAKE_MATCH_2 EQUAL 0)
    message(FATAL_ERROR "${what}: the adaptations refined ${CMAKE_MATCH_1} cells and coarsened "
      "${CMAKE_MATCH_2} pairs: the mesh did not move with the lake")
  endif()
  string(REGEX MATCHALL "adapt step [0-9]+ cells [0-9]+ refined [0-9]+ coarsened [0-9]+" lines
    "${out}")
  set(prev "")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "cells ([0-9]+) refined ([0-9]+) coarsened ([0-9]+)" _ "${line}")
    if(NOT prev STREQUAL "")
      math(EXPR expect "${prev} + ${CMAKE_MATCH_2} - ${CMAKE_MATCH_3}")
      if(NOT expect EQUAL CMAKE_MATCH_1)
        message(FATAL_ERROR "${what}: '${line}' after ${prev} cells: expected ${expect} cells")
      endif()
    endif()
    set(prev ${CMAKE_MATCH_1})
  endforeach()
  if(NOT out MATCHES "mass drift ([0-9.e+-]+)" OR CMAKE_MATCH_1 GREATER 1e-12)
    message(FATAL_ERROR "${what}: mass drift ${CMAKE_MATCH_1} above 1e-12:\n${out}")
  endif()
endfunction()

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
  if(NOT rc EQUAL 0 OR NOT (out MATCHES "verified" OR DEFINED LBS))
    message(FATAL_ERROR "run ${np} ranks TIDE_LB=${lb} failed (${rc}):\n${out}\n${err}")
  endif()
  if(DEFINED LBS)
    check_default_run("${out}" "${np} ranks TIDE_LB=${lb}")
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
# Not for the default run (LBS): its phases hold about 20 us of work, below what any strategy
# acts on, so a move there is chance (ws stole 16 tasks in one run and none in the next, and CI
# failed on it); the balancing is checked by the costly adaptive runs above.
if(DEFINED NP AND NOT DEFINED LBS AND moved_by_strategies EQUAL 0)
  message(FATAL_ERROR "no strategy offloaded a task on ${NP} ranks: the test proves nothing")
endif()
