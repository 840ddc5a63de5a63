# --vtk writes lake_NNNN.vtk every --vtk-every steps and at the last: triangles, cell fields.
# Usage: cmake -DMPIEXEC=... -DPROXY=... -DDIR=... -P vtk_output.cmake
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${MPIEXEC} -n 2 ${PROXY} --depth 5 --uniform --sections-per-rank 2 --steps 5
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
    "CELL_DATA 64" "SCALARS h double" "SCALARS rank int" "SCALARS section int"
    "SCALARS level int")
  if(NOT vtk MATCHES "${re}")
    message(FATAL_ERROR "lake_0005.vtk lacks '${re}'")
  endif()
endforeach()

# The adaptive mesh: cells at several levels, from the min depth (the land) to the max (the lake).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${MPIEXEC} -n 2 ${PROXY} --depth 8 --min-depth 4 --adapt-every 2
  --sections-per-rank 2 --steps 4 --vtk ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "adaptive run failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${DIR}/lake_0004.vtk vtk)
string(FIND "${vtk}" "SCALARS level int 1\nLOOKUP_TABLE default\n" at)
if(at LESS 0)
  message(FATAL_ERROR "adaptive lake_0004.vtk lacks the level field")
endif()
string(SUBSTRING "${vtk}" ${at} -1 levels)
foreach(level 4 8)
  if(NOT levels MATCHES "\n${level}\n")
    message(FATAL_ERROR "adaptive lake_0004.vtk has no cell at level ${level}")
  endif()
endforeach()
