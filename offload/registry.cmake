# The registered task strategies, in the order TIDE_LB's error message lists them (after none,
# which registry.c adds): a new strategy is its file in src/ and its name here. Name N is the
# strategy `const tide_lb_ops tide_lb_N` whose .name is "N" (task_test_lb_registry checks that).
# The registry's table is generated from this list (tide_lb_registered.h, included by
# registry.c), and the test lists iterate over it (tide_task_strategy_names in
# cmake/TideCommon.cmake), so the two cannot differ.
set(TIDE_TASK_STRATEGIES
  ws
  react
  rep
  react_rep
  proact
  proact_react
  random)
