/* The registered task strategies: adding one is its file and its name in ../registry.cmake, from
 * which the build generates TIDE_LB_REGISTERED(X), X(tide_lb_<name>) for each in that order (the
 * order TIDE_LB's error message lists them). */
#include "tide_lb.h"
#include "tide_lb_registered.h"

#include <string.h>

#define DECLARE(ops) extern const tide_lb_ops ops;
#define ENTRY(ops) &ops,
TIDE_LB_REGISTERED(DECLARE)

static const tide_lb_ops tide_lb_none = {.name = "none", .help = "no balancing (the baseline)"};

static const tide_lb_ops *const registered[] = {&tide_lb_none, TIDE_LB_REGISTERED(ENTRY)};

#define NREGISTERED (sizeof registered / sizeof *registered)
#define MAX_KNOBS 64

const tide_lb_ops *const *tide_lb_all(size_t *n)
{
    *n = NREGISTERED;
    return registered;
}

const tide_lb_ops *tide_lb_ops_find(const char *name)
{
    for (size_t i = 0; name && i < NREGISTERED; i++)
        if (strcmp(registered[i]->name, name) == 0) return registered[i];
    return NULL;
}

const char *tide_lb_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < NREGISTERED; i++) {
            if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, registered[i]->name, sizeof names - strlen(names) - 1);
        }
    return names;
}

size_t tide_lb_knob_count(const tide_lb_ops *ops)
{
    size_t n = 0;
    while (ops->knobs && ops->knobs[n])
        n++;
    return n;
}

const tide_lb_knob *const *tide_lb_all_knobs(size_t *n)
{
    static const tide_lb_knob *all[MAX_KNOBS];
    static size_t count;
    if (!count)
        for (size_t i = 0; i < NREGISTERED; i++)
            for (size_t k = 0; k < tide_lb_knob_count(registered[i]); k++) {
                const tide_lb_knob *knob = registered[i]->knobs[k];
                size_t j = 0;
                while (j < count && all[j] != knob)
                    j++;
                if (j == count && count < MAX_KNOBS) all[count++] = knob;
            }
    *n = count;
    return all;
}
