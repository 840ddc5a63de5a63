/* The built-in models by name. A new model is one file and one line here. */
#include "internal.h"

#include <string.h>

static const tide_model_ops *const builtins[] = {&tide_model_rank_ops, &tide_model_task_ops};

#define NBUILTINS (sizeof builtins / sizeof builtins[0])

const tide_model_ops *tide_model_ops_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < NBUILTINS; i++)
        if (strcmp(builtins[i]->name, name) == 0) return builtins[i];
    return NULL;
}

const char *tide_model_ops_names(void)
{
    return "auto, rank, task";
}
