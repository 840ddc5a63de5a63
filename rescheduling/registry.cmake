# The registered global strategies, in the order TIDE_GLOBAL_LB's error message lists them: a new
# strategy is its file in src/ and its name here. Name N is the strategy
# `const tide_global_strategy tide_global_strategy_N` whose .name is "N" (global_test_plan checks
# that). The registry's table is generated from this list (tide_global_registered.h, included by
# global_registry.c), and the test lists iterate over it (tide_global_strategy_names in
# cmake/TideCommon.cmake), so the two cannot differ.
set(TIDE_GLOBAL_STRATEGIES
  none
  greedy
  refine
  random
  greedy_comm
  refine_comm
  smartlb
  average
  packdrop
  distributed)
