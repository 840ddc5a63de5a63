/* Fuzz target over the expression compiler and evaluator and the parameter-file reader: any
 * input must give either a compiled expression or an error with a column inside the text, and
 * evaluation must be deterministic and free of undefined behaviour at extreme variable values.
 * Built for libFuzzer (CBENCH_FUZZ=ON with clang) and, with standalone.c, as the corpus test. */
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_expr: check failed: %s (line %d)\n", #cond, __LINE__);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Variable values: typical ones, zeros and negatives (division by zero, negative modulo), and
 * the int64 extremes (overflow paths). Order: t, i, n, p, r, lbfreq. */
static const int64_t cases[][CBENCH_NVARS] = {
    {0, 1, 64, 4, 100, 10},
    {63, 100, 64, 4, 100, 10},
    {-7, 0, 0, -1, 0, 0},
    {INT64_MIN, INT64_MAX, -1, INT64_MIN, 1, -1},
    {INT64_MAX, INT64_MIN, INT64_MAX, 2, INT64_MIN, 3},
};

static void fuzz_expr(const char *s, size_t len)
{
    cbench_expr_error err;
    cbench_expr *e = cbench_expr_compile(s, CBENCH_VARS_ALL, &err);
    static char buf[3 * CBENCH_EXPR_MAX_LEN + 64];
    if (!e) {
        CHECK(err.pos >= 0 && (size_t)err.pos <= len);
        CHECK(err.msg[0] != 0);
        CHECK(cbench_expr_format_caret(buf, sizeof buf, s, err.pos, 4) > 0);
        return;
    }
    CHECK(!strcmp(cbench_expr_source(e), s));
    CHECK((cbench_expr_vars(e) & ~CBENCH_VARS_ALL) == 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int64_t v1 = 0, v2 = 0;
        int p1 = -1, p2 = -1;
        int r1 = cbench_expr_eval(e, cases[k], &v1, &p1);
        int r2 = cbench_expr_eval(e, cases[k], &v2, &p2);
        CHECK(r1 == r2);
        if (r1 == CBENCH_EXPR_OK) {
            CHECK(v1 == v2);
        } else {
            CHECK(r1 == CBENCH_EXPR_DIV_ZERO || r1 == CBENCH_EXPR_MOD_ZERO ||
                  r1 == CBENCH_EXPR_OVERFLOW);
            CHECK(p1 == p2 && p1 >= 0 && (size_t)p1 < len);
        }
    }
    /* Without i: an expression that compiled with all variables compiles without i exactly
     * when it does not read i. */
    cbench_expr *f = cbench_expr_compile(s, CBENCH_VARS_ALL & ~CBENCH_VAR_BIT(CBENCH_VAR_I), &err);
    CHECK((f != NULL) == !(cbench_expr_vars(e) & CBENCH_VAR_BIT(CBENCH_VAR_I)));
    cbench_expr_free(f);
    cbench_expr_free(e);
}

static void fuzz_file(const char *s)
{
    static char err[CBENCH_ERR_LEN];
    cbench_config c;
    cbench_config_init(&c);
    if (cbench_config_read(&c, s, "fuzz", err, sizeof err)) CHECK(!strncmp(err, "fuzz:", 5));
    cbench_config_free(&c);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > CBENCH_EXPR_MAX_LEN + 64) return 0;
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    size_t len = strlen(s); /* the text ends at the first NUL, as for a C string */
    fuzz_expr(s, len);
    fuzz_file(s);
    free(s);
    return 0;
}
