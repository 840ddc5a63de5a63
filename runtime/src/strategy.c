/* The registry of balancing strategies. Each strategy is one file (lb_*.c) written against the
 * tide_strategy interface and the engine's tide_offload_tasks(); adding one is one file and one
 * line here. */
#include "internal.h"

#include <string.h>

static const tide_strategy tide_strategy_none = {.name = "none"};

static const tide_strategy *const strategies[] = {
    &tide_strategy_none,   &tide_strategy_ws,     &tide_strategy_react,
    &tide_strategy_rep,    &tide_strategy_react_rep,    &tide_strategy_proact,
    &tide_strategy_proact_react, &tide_strategy_random,
};

#define NSTRATEGIES (sizeof strategies / sizeof *strategies)

const tide_strategy *tide_strategy_find(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; i++)
        if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
    return NULL;
}

const char *tide_strategy_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < NSTRATEGIES; i++) {
            if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, strategies[i]->name, sizeof names - strlen(names) - 1);
        }
    return names;
}
