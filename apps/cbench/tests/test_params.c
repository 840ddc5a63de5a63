/* Parameter files and options: a valid file, every kind of error with its file:line, overrides,
 * evaluation errors naming the expression, t and i, the check over all objects, and that the
 * printed configuration reads back as the same configuration. */
#define _POSIX_C_SOURCE 200809L
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static char err[CBENCH_ERR_LEN];

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static const char good[] = "# the paper's static imbalance\n"
                           "\n"
                           "n = 64\r\n"
                           "  r=20   # iterations\n"
                           "lbfreq = 5\n"
                           "int_op = float\n"
                           "gcomm = mesh2d\n"
                           "load = t < n/2 ? 10 : 50\n"
                           "msgsize = 1024 * (1 + t % 3)\n"
                           "msgnum = 2";

static void test_good_file(void)
{
    cbench_config c;
    cbench_config_init(&c);
    int rc = cbench_config_read(&c, good, "good.cbench", err, sizeof err);
    EXPECT(rc == 0, "good file: %s", err);
    EXPECT(c.n == 64 && c.r == 20 && c.lbfreq == 5 && c.load_unit == 1000, "integers");
    EXPECT(c.int_op == CBENCH_WORK_FLOAT && c.gcomm == CBENCH_MESH2D, "keywords");
    EXPECT(!strcmp(c.origin[CBENCH_N], "good.cbench:3") &&
               !strcmp(c.origin[CBENCH_R], "good.cbench:4"),
           "origins %s %s", c.origin[CBENCH_N], c.origin[CBENCH_R]);
    EXPECT(!strcmp(c.origin[CBENCH_INITMAP], "default") && c.origin[CBENCH_P][0] == 0, "defaults");
    EXPECT(cbench_config_finish(&c, false, err, sizeof err) == 0, "finish: %s", err);
    EXPECT(cbench_config_finish(&c, true, err, sizeof err) && strstr(err, "p is not set"),
           "p needed: %s", err);

    EXPECT(cbench_config_set(&c, "p", "4", "--p", err, sizeof err) == 0, "--p: %s", err);
    cbench_range range[CBENCH_NPARAMS];
    EXPECT(cbench_config_check(&c, 3, range, err, sizeof err) == 0, "check: %s", err);
    EXPECT(range[CBENCH_LOAD].min == 10 && range[CBENCH_LOAD].max == 50, "load range");
    EXPECT(range[CBENCH_INITMAP].min == 0 && range[CBENCH_INITMAP].max == 3, "initmap range");
    EXPECT(range[CBENCH_MSGSIZE].min == 1024 && range[CBENCH_MSGSIZE].max == 3072, "msgsize");

    /* the printout is a parameter file that reads back to the same configuration */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cbench_config_print(f, &c, range);
    fclose(f);
    EXPECT(
        strstr(text, "# load: from good.cbench:8, values in [10, 50]\nload = t < n/2 ? 10 : 50\n"),
        "printout:\n%s", text);
    cbench_config d;
    cbench_config_init(&d);
    EXPECT(cbench_config_read(&d, text, "printed", err, sizeof err) == 0, "reread: %s", err);
    EXPECT(d.n == c.n && d.p == c.p && d.r == c.r && d.lbfreq == c.lbfreq &&
               d.load_unit == c.load_unit && d.int_op == c.int_op && d.gcomm == c.gcomm,
           "reread simple parameters");
    for (int k = CBENCH_FIRST_EXPR; k < CBENCH_NPARAMS; k++)
        EXPECT(!strcmp(cbench_expr_source(c.expr[k]), cbench_expr_source(d.expr[k])), "reread %s",
               cbench_param_name((cbench_param)k));
    free(text);
    cbench_config_free(&d);
    cbench_config_free(&c);
}

static const struct {
    const char *text;
    const char *msg; /* the start of the message */
} bad[] = {
    {"n = 4\n\nlodd = 3\n", "f.cbench:3: unknown parameter 'lodd' (known: n, p, r,"},
    {"n = abc\n", "f.cbench:1: n 'abc' is invalid: expected an integer in [1, 10000000]"},
    {"n = 0\n", "f.cbench:1: n '0' is invalid"},
    {"n = 12x\n", "f.cbench:1: n '12x' is invalid"},
    {"r = 99999999999999999999\n", "f.cbench:1: r '99999999999999999999' is invalid"},
    {"lbfreq = -1\n", "f.cbench:1: lbfreq '-1' is invalid: expected an integer in [0, 1000000000] "
                      "(0: never balance)"},
    {"gcomm = torus\n", "f.cbench:1: gcomm 'torus' is invalid: expected ring, mesh2d or mesh3d"},
    {"int_op = double\n", "f.cbench:1: int_op 'double' is invalid: expected int or float"},
    {"# x\nload = 1\nload = 2\n", "f.cbench:3: load is set twice (first on line 2)"},
    {"n 64\n", "f.cbench:1: expected 'name = value', found 'n 64'"},
    {"load =   # nothing\n", "f.cbench:1: load has no value"},
    {"n = 4\nload = (t + 3 * 2\n",
     "f.cbench:2: load: error at column 11: expected ')' to close the '(' at column 1, found the "
     "end\n    (t + 3 * 2\n              ^"},
    {"initmap = i % p\n", "f.cbench:1: initmap: error at column 1: 'i' is not available in this "
                          "expression (allowed: t, n, p, r, lbfreq)\n    i % p\n    ^"},
    {"tasksize = 10 * i\n", "f.cbench:1: tasksize: error at column 6: 'i' is not available"},
};

static void test_bad_files(void)
{
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cbench_config c;
        cbench_config_init(&c);
        err[0] = 0;
        int rc = cbench_config_read(&c, bad[k].text, "f.cbench", err, sizeof err);
        EXPECT(rc == -1 && !strncmp(err, bad[k].msg, strlen(bad[k].msg)),
               "bad file %zu:\n  got      [%s]\n  expected [%s...]", k, err, bad[k].msg);
        EXPECT(!strchr(err, '\n') || strstr(bad[k].msg, "column"),
               "one line unless an expression is shown: [%s]", err);
        cbench_config_free(&c);
    }
}

static void test_missing_and_override(void)
{
    cbench_config c;
    cbench_config_init(&c);
    EXPECT(cbench_config_read(&c, "n = 8\nr = 2\n", "f", err, sizeof err) == 0, "%s", err);
    EXPECT(cbench_config_finish(&c, false, err, sizeof err) &&
               !strcmp(err, "load is not set: give it in the parameter file or as --load"),
           "missing load: %s", err);
    EXPECT(cbench_config_set(&c, "load", "100", "--load", err, sizeof err) == 0, "%s", err);
    EXPECT(cbench_config_set(&c, "n", "16", "--n", err, sizeof err) == 0, "%s", err);
    EXPECT(c.n == 16 && !strcmp(c.origin[CBENCH_N], "--n"), "override");
    EXPECT(cbench_config_set(&c, "bogus", "1", "--bogus", err, sizeof err) &&
               !strncmp(err, "--bogus: unknown parameter 'bogus'", 34),
           "unknown option: %s", err);
    cbench_config_free(&c);
}

static void test_eval_errors(void)
{
    cbench_config c;
    cbench_config_init(&c);
    const char *text = "n = 8\np = 4\nr = 5\nload = 100 / (t - 3) + 100\ninitmap = t % (p + 1)\n";
    EXPECT(cbench_config_read(&c, text, "e.cbench", err, sizeof err) == 0, "%s", err);
    int64_t v;
    EXPECT(cbench_config_eval(&c, CBENCH_LOAD, 2, 1, &v, err, sizeof err) == 0 && v == 0,
           "load at t=2: %s", err);
    EXPECT(cbench_config_eval(&c, CBENCH_LOAD, 3, 2, &v, err, sizeof err) == -1 &&
               !strcmp(err, "load (e.cbench:4): division by zero at t=3, i=2 in '100 / (t - 3) + "
                            "100' (column 5)\n    100 / (t - 3) + 100\n        ^"),
           "division by zero: [%s]", err);
    EXPECT(cbench_config_eval(&c, CBENCH_INITMAP, 4, 0, &v, err, sizeof err) == -1 &&
               !strcmp(err, "initmap (e.cbench:5) = 4 at t=4, i=0 is outside [0, p) = [0, 4): "
                            "'t % (p + 1)'"),
           "initmap range: [%s]", err);
    /* the check meets the initmap error first (t = 4), before load's */
    EXPECT(cbench_config_check(&c, 3, NULL, err, sizeof err) == -1 &&
               strstr(err, "initmap (e.cbench:5) = 4 at t=4"),
           "check: %s", err);
    EXPECT(cbench_config_set(&c, "initmap", "t / 2", "--initmap", err, sizeof err) == 0, "%s", err);
    EXPECT(cbench_config_check(&c, 3, NULL, err, sizeof err) == -1 &&
               strstr(err, "load (e.cbench:4): division by zero at t=3, i=1"),
           "check load: %s", err);
    EXPECT(cbench_config_set(&c, "load", "t - 2", "--load", err, sizeof err) == 0, "%s", err);
    EXPECT(cbench_config_check(&c, 3, NULL, err, sizeof err) == -1 &&
               strstr(err, "load (--load) = -2 at t=0, i=1 is outside [0, 3600000]"),
           "negative load: %s", err);
    cbench_config_free(&c);
}

int main(void)
{
    test_good_file();
    test_bad_files();
    test_missing_and_override();
    test_eval_errors();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_params: all passed\n");
    return 0;
}
