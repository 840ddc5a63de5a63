/* Names no row has. A stray TIDE_* variable is usually another program's (a module system's
 * TIDE_HOME, a script's TIDE_BUILD) and should not stop a run; one within a typo's reach of a
 * real knob is almost surely that knob misspelt, and ignoring it would silently run with the
 * default. The distance decides which, so the rule is written down once, here. */
#define _GNU_SOURCE /* strnlen */
#include "tide_knob.h"

#include <string.h>

enum { NAME_MAX_CMP = 64 };

size_t tide_knob_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, NAME_MAX_CMP), m = strnlen(b, NAME_MAX_CMP);
    /* Optimal string alignment: three rows of the Damerau-Levenshtein table suffice. */
    size_t rows[3][NAME_MAX_CMP + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev, prev = cur, cur = t;
    }
    return prev[m];
}

/* Edits a misspelling of a name of this many characters (after TIDE_) plausibly has: one in a
 * short name, two up to eight characters, three beyond. */
static size_t typo_reach(const char *name)
{
    size_t len = strlen(name);
    len = len > 5 ? len - 5 : 0;
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

tide_knob_guess tide_knob_guess_name(const tide_knob_place *places, size_t n, const char *name)
{
    tide_knob_guess g = {0};
    size_t best = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        const tide_knob_table *t = places[i].table;
        if (t->prefix && strncmp(name, t->prefix, strlen(t->prefix)) == 0) g.owned = true;
        for (size_t r = 0; r < t->n; r++) {
            size_t d = tide_knob_distance(name, t->rows[r].name);
            if (d < best) best = d, g.nearest = t->rows[r].name;
        }
    }
    size_t reach = typo_reach(name);
    g.close = g.nearest && best <= reach;
    if (g.nearest && best > reach + 2) g.nearest = NULL; /* too far to be worth suggesting */
    return g;
}
