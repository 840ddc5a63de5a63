# Settings every Tide component shares, whether it is built from the top level or on its own
# (cmake -S <component> ...): C11, warnings, the sanitizer option, and how MPI tests are run.
include_guard(GLOBAL)

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

option(TIDE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(TIDE_BUILD_TESTS "Build the test suite" ON)

add_compile_options(-Wall -Wextra)
if(TIDE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

include(GNUInstallDirs)
enable_testing()

# The launcher every MPI test uses: oversubscribed, and allowed as root (CI runs as root).
find_package(MPI QUIET COMPONENTS C)
if(MPIEXEC_EXECUTABLE)
  set(TIDE_MPIEXEC ${MPIEXEC_EXECUTABLE} --oversubscribe)
else()
  set(TIDE_MPIEXEC mpiexec --oversubscribe)
endif()
set(TIDE_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1;OMPI_MCA_rmaps_base_oversubscribe=1;TIDE_QUIET=1")
if(TIDE_SANITIZE)
  # Leaks are errors; Open MPI's own are suppressed (cmake/lsan.supp), Tide's are not. Keeping
  # Open MPI's components loaded gives their frames names the suppressions can match.
  list(APPEND TIDE_MPI_TEST_ENV
    "OMPI_MCA_mca_base_component_disable_dlclose=1"
    "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:fast_unwind_on_malloc=0"
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

# The task strategies' names: the list registry.c's table is generated from
# (offload/registry.cmake), so that test lists iterate over the registry instead of
# repeating it. `none` and the engine test mode `random` are left out: they balance nothing.
function(tide_task_strategy_names out)
  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../offload/registry.cmake)
  set(names ${TIDE_TASK_STRATEGIES})
  list(REMOVE_ITEM names random)
  list(SORT names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# A registry's table from its list (the task and the global strategies): writes <out> defining
# <macro>(X) as X(<prefix><name>) for each name in order; `source` names the list's file.
function(tide_registry_header out macro prefix source)
  set(entries "")
  foreach(name ${ARGN})
    string(APPEND entries " X(${prefix}${name})")
  endforeach()
  file(CONFIGURE OUTPUT ${out} @ONLY CONTENT
    "/* Generated from @source@: edit the list there. */
#define @macro@(X)@entries@
")
endfunction()

# The global strategies' names: the list global_registry.c's table is generated from
# (rescheduling/registry.cmake). `none` and the control `random` are left out: they balance
# nothing.
function(tide_global_strategy_names out)
  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../rescheduling/registry.cmake)
  set(names ${TIDE_GLOBAL_STRATEGIES})
  list(REMOVE_ITEM names none random)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# Strategy tests check the strategy's effect, not only the results: cmake/lb_effect.py runs the
# test's command with the strategy its environment names (KNOB: TIDE_LB or TIDE_GLOBAL_LB) and
# requires that work moved and that the imbalance of the loads as the strategy placed them fell
# below that of the loads it saw (phases[].L_run against L; a rescheduling's max_after against
# max_before): the strategy's decisions, not wall times, which a busy machine stretches.
# tide_lb_effect(<var> <test name> <knob> [lb_effect.py options...]) sets <var> to the prefix;
# the test is then add_test(NAME <test name> COMMAND ${<var>} -- <command...>).
set(TIDE_LB_EFFECT_PY ${CMAKE_CURRENT_LIST_DIR}/lb_effect.py)
set(TIDE_NO_SLOWER_PY ${CMAKE_CURRENT_LIST_DIR}/no_slower.py)
function(tide_lb_effect var name knob)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(${var} ${Python3_EXECUTABLE} ${TIDE_LB_EFFECT_PY} --out ${CMAKE_CURRENT_BINARY_DIR}/${name}
    --knob ${knob} ${ARGN} PARENT_SCOPE)
endfunction()
