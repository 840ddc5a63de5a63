/* The expression language's semantics and messages: a table of expressions with their expected
 * values or errors (precedence, associativity, short-circuit, C division), syntax errors with
 * their columns, and the caret drawing. */
#include "expr.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define MIN "(-9223372036854775807 - 1)"

/* t, i, n, p, r, lbfreq of every row unless a row gives its own */
static const int64_t base[CBENCH_NVARS] = {5, 3, 64, 4, 100, 10};

static const struct {
    const char *src;
    int status;    /* CBENCH_EXPR_* */
    int64_t value; /* when status is OK */
    int64_t t, i;  /* -1: base's */
} table[] = {
    /* precedence and associativity, as in C */
    {"1 + 2 * 3", 0, 7, -1, -1},
    {"(1 + 2) * 3", 0, 9, -1, -1},
    {"10 - 4 - 3", 0, 3, -1, -1},
    {"100 / 10 / 5", 0, 2, -1, -1},
    {"2 * 3 % 4", 0, 2, -1, -1},
    {"2 + 3 % 4 * 2", 0, 8, -1, -1},
    {"-2 * 3", 0, -6, -1, -1},
    {"- -3", 0, 3, -1, -1},
    {"--3", 0, 3, -1, -1},
    {"+5", 0, 5, -1, -1},
    {"-(2 + 3)", 0, -5, -1, -1},
    {"!0", 0, 1, -1, -1},
    {"!5", 0, 0, -1, -1},
    {"!!7", 0, 1, -1, -1},
    {"!0 + 1", 0, 2, -1, -1},
    {"1 < 2 == 1", 0, 1, -1, -1},
    {"3 > 2 > 1", 0, 0, -1, -1},
    {"1 + 2 < 4", 0, 1, -1, -1},
    {"2 <= 2", 0, 1, -1, -1},
    {"2 >= 3", 0, 0, -1, -1},
    {"2 != 3", 0, 1, -1, -1},
    {"1 == 1 && 2 == 3", 0, 0, -1, -1},
    {"1 || 0 && 0", 0, 1, -1, -1},
    {"(1 || 0) && 0", 0, 0, -1, -1},
    {"5 && 7", 0, 1, -1, -1},
    {"0 || 9", 0, 1, -1, -1},
    {"0 || 0", 0, 0, -1, -1},
    {"5 || 0", 0, 1, -1, -1},
    {"-3 || 0", 0, 1, -1, -1},
    {"(t || 0) + (0 || t)", 0, 2, -1, -1},
    {"3 && 0 || 4", 0, 1, -1, -1},
    {"1 ? 2 : 3", 0, 2, -1, -1},
    {"0 ? 2 : 3", 0, 3, -1, -1},
    {"0 ? 1 : 0 ? 2 : 3", 0, 3, -1, -1},
    {"0 ? 1 : 2 ? 3 : 4", 0, 3, -1, -1},
    {"1 ? 0 ? 4 : 5 : 6", 0, 5, -1, -1},
    {"1 ? 2 : 3 + 10", 0, 2, -1, -1},
    {"0 ? 2 : 3 + 10", 0, 13, -1, -1},
    {"1 + 1 ? 7 : 8", 0, 7, -1, -1},
    {"(0 ? 1 : 2) * 10", 0, 20, -1, -1},
    {"\t1+ 2 ", 0, 3, -1, -1},
    /* short-circuit: the side C does not evaluate cannot fail */
    {"0 && 1 / 0", 0, 0, -1, -1},
    {"1 || 1 / 0", 0, 1, -1, -1},
    {"7 || 1 / 0", 0, 1, -1, -1},
    {"1 ? 2 : 1 / 0", 0, 2, -1, -1},
    {"0 ? 1 / 0 : 3", 0, 3, -1, -1},
    {"1 && 1 / 0", CBENCH_EXPR_DIV_ZERO, 0, -1, -1},
    /* division truncates toward zero; the remainder has the sign of the dividend */
    {"-7 / 2", 0, -3, -1, -1},
    {"7 / -2", 0, -3, -1, -1},
    {"-7 / -2", 0, 3, -1, -1},
    {"-7 % 2", 0, -1, -1, -1},
    {"7 % -2", 0, 1, -1, -1},
    {"-7 % -2", 0, -1, -1, -1},
    {"(t - 10) / 3", 0, -1, -1, -1},
    /* int64 limits */
    {"9223372036854775807", 0, INT64_MAX, -1, -1},
    {MIN, 0, INT64_MIN, -1, -1},
    {"9223372036854775807 + 1", CBENCH_EXPR_OVERFLOW, 0, -1, -1},
    {MIN " - 1", CBENCH_EXPR_OVERFLOW, 0, -1, -1},
    {"3037000500 * 3037000500", CBENCH_EXPR_OVERFLOW, 0, -1, -1},
    {"3037000499 * 3037000499", 0, INT64_C(9223372030926249001), -1, -1},
    {MIN " / -1", CBENCH_EXPR_OVERFLOW, 0, -1, -1},
    {MIN " % -1", 0, 0, -1, -1},
    {MIN " / 1", 0, INT64_MIN, -1, -1},
    {"-" MIN, CBENCH_EXPR_OVERFLOW, 0, -1, -1},
    {"1 / 0", CBENCH_EXPR_DIV_ZERO, 0, -1, -1},
    {"1 % 0", CBENCH_EXPR_MOD_ZERO, 0, -1, -1},
    {"t / (t - 5)", CBENCH_EXPR_DIV_ZERO, 0, 5, -1},
    {"t / (t - 5)", 0, 6, 6, -1},
    /* the paper's examples */
    {"t < n/2 ? 10 : 50", 0, 10, 31, -1},
    {"t < n/2 ? 10 : 50", 0, 50, 32, -1},
    {"10 + ((i/10) * 4 * (t % p))", 0, 34, 7, 25},
    {"10 + ((i/10) * 4 * (t % p))", 0, 10, 7, 9},
    {"i % 5 < 1 ? 10000 : 100", 0, 10000, -1, 10},
    {"i % 5 < 1 ? 10000 : 100", 0, 100, -1, 11},
    {"(t*p)/n", 0, 3, 63, -1},
    {"(t*p)/n", 0, 1, 16, -1},
    {"lbfreq + r", 0, 110, -1, -1},
};

static void test_table(void)
{
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        int64_t vars[CBENCH_NVARS];
        memcpy(vars, base, sizeof vars);
        if (table[k].t >= 0) vars[CBENCH_VAR_T] = table[k].t;
        if (table[k].i >= 0) vars[CBENCH_VAR_I] = table[k].i;
        cbench_expr_error err;
        cbench_expr *e = cbench_expr_compile(table[k].src, CBENCH_VARS_ALL, &err);
        EXPECT(e, "'%s' does not compile: %s", table[k].src, err.msg);
        if (!e) continue;
        int64_t v = 0;
        int st = cbench_expr_eval(e, vars, &v, NULL);
        EXPECT(st == table[k].status, "'%s': status %d, expected %d", table[k].src, st,
               table[k].status);
        if (st == 0 && table[k].status == 0)
            EXPECT(v == table[k].value, "'%s' = %lld, expected %lld", table[k].src, (long long)v,
                   (long long)table[k].value);
        cbench_expr_free(e);
    }
}

static const struct {
    const char *src;
    int pos;
    const char *msg; /* a part of the message */
} syntax[] = {
    {"1 +", 3, "ends too early"},
    {"(1 + 2", 6, "expected ')' to close the '(' at column 1"},
    {"1 + * 2", 4, "expected a number, a variable or '(', found '*'"},
    {"t < n/2 ? 10", 12, "expected ':' of the '?' at column 9"},
    {"x + 1", 0, "unknown name 'x'"},
    {"1 + tt", 4, "unknown name 'tt'"},
    {"1 = 2", 2, "'=' is not an operator"},
    {"1 & 2", 2, "no bitwise operators"},
    {"1 | 2", 2, "no bitwise operators"},
    {"010", 0, "leading zeros"},
    {"1.5", 1, "numbers are integers"},
    {"10ms", 2, "unexpected 'm' after a number"},
    {"", 0, "empty expression"},
    {"   ", 3, "empty expression"},
    {"1 2", 2, "unexpected '2' after a complete expression"},
    {"(1))", 3, "unexpected ')' after a complete expression"},
    {")", 0, "found ')'"},
    {"9223372036854775808", 0, "too large"},
    {"1 $ 2", 2, "unexpected '$'"},
    {"1 + \x01", 4, "unexpected byte 0x01"},
    {"1 ? : 2", 4, "found ':'"},
};

static void test_syntax_errors(void)
{
    for (size_t k = 0; k < sizeof syntax / sizeof syntax[0]; k++) {
        cbench_expr_error err = {0};
        cbench_expr *e = cbench_expr_compile(syntax[k].src, CBENCH_VARS_ALL, &err);
        EXPECT(!e, "'%s' compiles", syntax[k].src);
        cbench_expr_free(e);
        EXPECT(err.pos == syntax[k].pos, "'%s': column %d, expected %d (%s)", syntax[k].src,
               err.pos, syntax[k].pos, err.msg);
        EXPECT(strstr(err.msg, syntax[k].msg), "'%s': message '%s' lacks '%s'", syntax[k].src,
               err.msg, syntax[k].msg);
    }
}

static void test_limits(void)
{
    char deep[256];
    int k = 0;
    for (; k < 70; k++)
        deep[k] = '(';
    deep[k++] = '1';
    deep[k] = 0;
    cbench_expr_error err;
    cbench_expr *e = cbench_expr_compile(deep, CBENCH_VARS_ALL, &err);
    EXPECT(!e && strstr(err.msg, "nested too deeply"), "70 '(' : %s", e ? "compiles" : err.msg);
    /* 60 levels are fine */
    char ok[256];
    int n = 0;
    for (int j = 0; j < 60; j++)
        ok[n++] = '(';
    ok[n++] = '7';
    for (int j = 0; j < 60; j++)
        ok[n++] = ')';
    ok[n] = 0;
    e = cbench_expr_compile(ok, CBENCH_VARS_ALL, &err);
    int64_t v = 0;
    EXPECT(e && cbench_expr_eval(e, base, &v, NULL) == 0 && v == 7, "60 levels: %s",
           e ? "wrong value" : err.msg);
    cbench_expr_free(e);

    static char longsrc[CBENCH_EXPR_MAX_LEN + 8];
    memset(longsrc, '1', sizeof longsrc - 1);
    e = cbench_expr_compile(longsrc, CBENCH_VARS_ALL, &err);
    EXPECT(!e && strstr(err.msg, "longer than"), "long expression: %s", e ? "compiles" : err.msg);
}

static void test_variables(void)
{
    cbench_expr_error err;
    unsigned no_i = CBENCH_VARS_ALL & ~CBENCH_VAR_BIT(CBENCH_VAR_I);
    cbench_expr *e = cbench_expr_compile("t + i", no_i, &err);
    EXPECT(!e && err.pos == 4 && strstr(err.msg, "'i' is not available"), "i without i: %s",
           e ? "compiles" : err.msg);
    EXPECT(strstr(err.msg, "allowed: t, n, p, r, lbfreq"), "allowed list: %s", err.msg);
    e = cbench_expr_compile("(t*p)/n + lbfreq", no_i, &err);
    EXPECT(e && cbench_expr_vars(e) ==
                    (CBENCH_VAR_BIT(CBENCH_VAR_T) | CBENCH_VAR_BIT(CBENCH_VAR_P) |
                     CBENCH_VAR_BIT(CBENCH_VAR_N) | CBENCH_VAR_BIT(CBENCH_VAR_LBFREQ)),
           "used variables");
    EXPECT(e && !strcmp(cbench_expr_source(e), "(t*p)/n + lbfreq"), "source kept");
    cbench_expr_free(e);
}

static void test_eval_error_column(void)
{
    static const struct {
        const char *src;
        int pos;
    } cases[] = {
        {"t / (t - 5)", 2}, {"1 + 2 % 0", 6}, {"1 + 9223372036854775807", 2}, {"-(" MIN ")", 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cbench_expr_error err;
        cbench_expr *e = cbench_expr_compile(cases[k].src, CBENCH_VARS_ALL, &err);
        int64_t v;
        int pos = -1;
        EXPECT(e && cbench_expr_eval(e, base, &v, &pos) < 0 && pos == cases[k].pos,
               "'%s': error column %d, expected %d", cases[k].src, pos, cases[k].pos);
        cbench_expr_free(e);
    }
}

static void test_caret(void)
{
    char buf[128];
    cbench_expr_format_caret(buf, sizeof buf, "1 + * 2", 4, 2);
    EXPECT(!strcmp(buf, "  1 + * 2\n      ^\n"), "caret: [%s]", buf);
    cbench_expr_format_caret(buf, sizeof buf, "\t1 +", 4, 0);
    EXPECT(!strcmp(buf, " 1 +\n    ^\n"), "caret after a tab: [%s]", buf);
    char small[6];
    cbench_expr_format_caret(small, sizeof small, "1 + * 2", 4, 2);
    EXPECT(strlen(small) == 5, "truncated caret stays a string: [%s]", small);
    EXPECT(!strcmp(cbench_expr_strerror(CBENCH_EXPR_DIV_ZERO), "division by zero"), "strerror");
}

int main(void)
{
    test_table();
    test_syntax_errors();
    test_limits();
    test_variables();
    test_eval_error_column();
    test_caret();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_expr: all passed\n");
    return 0;
}
