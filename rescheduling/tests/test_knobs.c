/*
 * test_knobs.c - the global strategies' knob table: valid rows, defaults equal to
 * tide_global_params_default, and every value the table accepts (each range's ends) is accepted
 * by the strategies, so a knob can never pass the parser and then fail a strategy.
 */
#include "../../offload/tests/check.h"
#include "tide_global_knobs.h"

#include <stdint.h>
#include <string.h>

static void defaults_agree(void)
{
    const tide_knob_table *t = tide_global_knobs();
    char err[256] = "";
    CHECK(tide_knob_table_valid(t, err, sizeof err) == TIDE_KNOB_OK);
    if (err[0]) fprintf(stderr, "%s\n", err);
    tide_global_params want, got;
    memset(&want, 0, sizeof want); /* memcmp compares the padding too */
    tide_global_params_default(&want);
    memset(&got, 0, sizeof got);
    got.seed = want.seed; /* not a knob */
    CHECK(tide_knob_defaults(t, &got, err, sizeof err) == TIDE_KNOB_OK);
    CHECK(memcmp(&want, &got, sizeof want) == 0);
}

/* Sets row k to its range's end (as the user would write it) and runs a strategy with it. */
static int run_with(const tide_knob *k, double end)
{
    tide_global_params p;
    tide_global_params_default(&p);
    char text[64], err[256];
    snprintf(text, sizeof text, k->kind == TIDE_KNOB_INT ? "%.0f" : "%.17g", end);
    CHECK(tide_knob_parse(k, &p, text, err, sizeof err) == TIDE_KNOB_OK);
    double load[] = {3, 1, 2};
    int32_t owner[] = {0, 0, 1}, out[3];
    tide_global_input in = {.np = 2, .nobj = 3, .load = load, .owner = owner};
    return tide_global_none(&in, &p, out);
}

static void ranges_accepted(void)
{
    const tide_knob_table *t = tide_global_knobs();
    for (size_t i = 0; i < t->n; i++) {
        CHECK_EQ_I64(run_with(&t->rows[i], t->rows[i].min), TIDE_PLAN_OK);
        CHECK_EQ_I64(run_with(&t->rows[i], t->rows[i].max), TIDE_PLAN_OK);
    }
}

int main(void)
{
    defaults_agree();
    ranges_accepted();
    return CHECK_REPORT("global_test_knobs");
}
