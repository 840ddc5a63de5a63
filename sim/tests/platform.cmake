# cmake -DSIM=tide-sim -DPLATFORM=name -DCORES=n -DBW=bw "-DCASES=P:lat;..." -DDIR=dir
#       -P platform.cmake
# A platform of sim/platforms/ is chosen by its short name (--platform NAME) and has the
# parameters docs/sim.md gives it: for each case, a one-phase run on P ranks reports the
# platform's file, 2 ranks per host, CORES cores per host, and the collective model's
# bandwidth and latency, which tide-sim reads off SimGrid's route between the first and the
# last rank's hosts: the link bandwidth (BW) and the sum of the latencies of the links on that
# route (lat), so P chooses how far apart the two hosts are in the platform's tree. BW and lat
# are as the statistics print them (%.9g, bytes/s and seconds).
foreach(c ${CASES})
  string(REPLACE ":" ";" c "${c}")
  list(GET c 0 ranks)
  list(GET c 1 lat)
  set(stats ${DIR}/platform_${PLATFORM}_${ranks}.json)
  execute_process(COMMAND ${SIM} --platform ${PLATFORM} --ranks ${ranks} --threads 1 --iters 1
    --tasks-per-rank 1 --task-ms 1 --stats ${stats} --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tide-sim --platform ${PLATFORM} --ranks ${ranks} failed (${rc}): ${err}")
  endif()
  file(READ ${stats} doc)
  string(JSON file GET "${doc}" config sim platform)
  string(JSON per_host GET "${doc}" config sim ranks_per_host)
  string(JSON cores GET "${doc}" config sim host_cores)
  # the numbers as printed (CMake's JSON reader would rewrite them at 17 digits)
  string(REGEX MATCH "\"coll_latency\": ([^,]*)," _ "${doc}")
  set(got_lat "${CMAKE_MATCH_1}")
  string(REGEX MATCH "\"coll_bandwidth\": ([^,]*)," _ "${doc}")
  set(got_bw "${CMAKE_MATCH_1}")
  if(NOT file MATCHES "/${PLATFORM}\\.xml$" OR NOT per_host EQUAL 2 OR NOT cores EQUAL CORES
     OR NOT got_bw STREQUAL BW OR NOT got_lat STREQUAL lat)
    message(FATAL_ERROR "${PLATFORM} at ${ranks} ranks: file ${file}, ${per_host} ranks per "
      "host, ${cores} cores, bandwidth ${got_bw} B/s, latency ${got_lat} s; expected "
      "${PLATFORM}.xml, 2, ${CORES}, ${BW} B/s, ${lat} s")
  endif()
  message("${PLATFORM} at ${ranks} ranks: ${cores} cores per host, ${got_bw} B/s, ${got_lat} s")
endforeach()
