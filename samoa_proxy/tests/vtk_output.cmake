# --vtk writes lake_NNNN.vtk every --vtk-every steps and at the last: triangles, cell fields.
# Usage: cmake -DMPIEXEC=... -DPROXY=... -DDIR=... -P vtk_output.cmake
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${MPIEXEC} -n 2 ${PROXY} --depth 5 --sections-per-rank 2 --steps 5
  --vtk ${DIR} --vtk-every 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB files ${DIR}/lake_*.vtk)
list(LENGTH files n)
if(NOT n EQUAL 3) # after steps 1, 3, 5: every 2nd step from the first, and the last
  message(FATAL_ERROR "expected 3 VTK files, got ${n}: ${files}")
endif()
file(READ ${DIR}/lake_0005.vtk vtk)
foreach(re "DATASET UNSTRUCTURED_GRID" "POINTS 192 double" "CELLS 64 256" "CELL_TYPES 64"
    "CELL_DATA 64" "SCALARS h double" "SCALARS rank int" "SCALARS section int")
  if(NOT vtk MATCHES "${re}")
    message(FATAL_ERROR "lake_0005.vtk lacks '${re}'")
  endif()
endforeach()
