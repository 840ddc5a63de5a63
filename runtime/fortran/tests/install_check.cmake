# cmake -DBUILD=<tide build dir> -DSRC=<this dir> -DWORK=<scratch dir> -DMPIEXEC=... -P install_check.cmake
# Installs Tide into a scratch prefix, then builds the Fortran example in a Fortran-only project
# with find_package(Tide COMPONENTS Fortran) and once more with mpifort and pkg-config
# (tide-fortran), and runs both on 2 ranks: each must print that it reproduced the computation
# without Tide bit for bit.
file(REMOVE_RECURSE ${WORK})
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
run("configuring the find_package(Tide COMPONENTS Fortran) project"
  ${CMAKE_COMMAND} -S ${SRC}/consumer -B ${WORK}/consumer -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run("building the find_package(Tide COMPONENTS Fortran) project" ${CMAKE_COMMAND} --build ${WORK}/consumer)
run("the find_package program" ${MPIEXEC} --oversubscribe -n 2 ${WORK}/consumer/heat --steps 3)
if(NOT out MATCHES "heat: verified")
  message(FATAL_ERROR "the find_package program did not verify its result:\n${out}")
endif()

file(GLOB pcdir ${WORK}/prefix/lib*/pkgconfig ${WORK}/prefix/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
run("pkg-config tide-fortran" pkg-config --cflags --libs tide-fortran)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling with mpifort and pkg-config flags (${flags})"
  mpifort ${SRC}/../../../examples/fortran/heat.f90 ${flags} -o ${WORK}/heat_pc)
# No LD_LIBRARY_PATH: the flags' rpath (tide.pc) must find libtide_f and libtide.
set(ENV{LD_LIBRARY_PATH} "")
run("the pkg-config program" ${MPIEXEC} --oversubscribe -n 2 ${WORK}/heat_pc --steps 3)
if(NOT out MATCHES "heat: verified")
  message(FATAL_ERROR "the pkg-config program did not verify its result:\n${out}")
endif()
message("installed Tide works from Fortran through find_package and pkg-config")
