/* The registry of task strategies, counted rather than listed: every registered strategy has a
 * unique name that tide_lb_ops_find returns, consistent flags, and knobs with a valid default
 * inside its range; tide_lb_names lists them all; knobs shared by strategies appear once. */
#include "check.h"
#include "tide_lb.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t n, nk;
    const tide_lb_ops *const *all = tide_lb_all(&n);
    const tide_lb_knob *const *knobs = tide_lb_all_knobs(&nk);
    CHECK(n >= 1 && strcmp(all[0]->name, "none") == 0);
    for (size_t i = 0; i < n; i++) {
        const tide_lb_ops *s = all[i];
        CHECK(s->name && *s->name && s->help);
        CHECK(tide_lb_ops_find(s->name) == s);
        CHECK(strstr(tide_lb_names(), s->name) != NULL);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(all[j]->name, s->name) != 0);
        /* A strategy that plans at phase start needs the start-of-phase status. */
        if (s->phase_begin) CHECK(s->flags & TIDE_LB_PHASE_SYNC);
        if (s->round) CHECK(s->flags & TIDE_LB_ROUNDS);
        for (size_t k = 0; k < tide_lb_knob_count(s); k++) {
            const tide_lb_knob *kb = s->knobs[k];
            CHECK(strncmp(kb->name, "TIDE_", 5) == 0 && kb->help);
            CHECK(kb->min <= kb->def && kb->def <= kb->max);
            size_t found = 0;
            for (size_t a = 0; a < nk; a++)
                found += knobs[a] == kb;
            CHECK_EQ_I64(found, 1);
        }
    }
    for (size_t a = 0; a < nk; a++)
        for (size_t b = 0; b < a; b++)
            CHECK(strcmp(knobs[a]->name, knobs[b]->name) != 0);
    CHECK(tide_lb_ops_find("no-such-strategy") == NULL);
    /* The balancers the build's test lists iterate over: every registered one but none and the
     * engine test mode random, each exactly once. */
    const char *listed = getenv("TIDE_TEST_BALANCERS");
    if (listed) {
        size_t expect = 0;
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(all[i]->name, "none") || !strcmp(all[i]->name, "random")) continue;
            expect++;
            char pat[64];
            snprintf(pat, sizeof pat, ",%s,", all[i]->name);
            char padded[512];
            snprintf(padded, sizeof padded, ",%s,", listed);
            CHECK(strstr(padded, pat) != NULL);
        }
        size_t commas = 0;
        for (const char *c = listed; *c; c++)
            commas += *c == ',';
        CHECK_EQ_I64(commas + 1, expect);
    }
    printf("%zu strategies, %zu knobs, %d failures\n", n, nk, check_failures);
    return check_failures != 0;
}
