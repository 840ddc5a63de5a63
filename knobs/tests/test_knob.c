/* The knob parser over a table of every kind: values land in their fields with the right C type,
 * a bad value leaves the field alone and gives the line users see, stored values are checked with
 * the same words, unknown names are reported by the table that owns their prefix, broken tables
 * are refused, and the markdown keeps one row per knob. */
#define _POSIX_C_SOURCE 200809L
#include "tide_knob.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

typedef struct params {
    int count;
    uint64_t seed;
    double weight; /* an INT that reaches its reader as a double */
    double factor;
    double guard;
    uint64_t bytes;
    int mode;
    char model[8];
    char path[16];
    int cpu;
} params;

static const char *const modes[] = {"fast", "exact", NULL};

static bool known_model(const char *v)
{
    return strcmp(v, "ar") == 0 || strcmp(v, "mean") == 0;
}

static const char *model_names(void)
{
    return "ar, mean";
}

/* "off" is -1; otherwise a number in [0, 9]. */
static int set_cpu(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    long l;
    if (strcmp(v, "off") == 0)
        l = -1;
    else if (!tide_knob_read_long(v, 0, 9, &l))
        return tide_knob_bad(k->name, v, k->allowed, err, len);
    *(int *)field = (int)l;
    return TIDE_KNOB_OK;
}

static const tide_knob rows[] = {
    {.name = "TIDE_T_COUNT",
     .kind = TIDE_KNOB_INT,
     .def = "4",
     .min = 1,
     .max = 64,
     .help = "a count | with a bar",
     TIDE_KNOB_FIELD(params, count)},
    {.name = "TIDE_T_SEED",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 0,
     .max = 2147483647,
     .store = TIDE_KNOB_STORE_U64,
     .help = "a seed",
     TIDE_KNOB_FIELD(params, seed)},
    {.name = "TIDE_T_WEIGHT",
     .kind = TIDE_KNOB_INT,
     .def = "3",
     .min = 0,
     .max = 10,
     .store = TIDE_KNOB_STORE_DOUBLE,
     .help = "a weight",
     TIDE_KNOB_FIELD(params, weight)},
    {.name = "TIDE_T_FACTOR",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "0.5",
     .min = 0,
     .max = 1,
     .help = "a fraction",
     TIDE_KNOB_FIELD(params, factor)},
    {.name = "TIDE_T_GUARD",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "2",
     .min = 1,
     .max = 1000,
     .flags = TIDE_KNOB_MIN_OPEN | TIDE_KNOB_OR_ZERO,
     .help = "a factor or off",
     TIDE_KNOB_FIELD(params, guard)},
    {.name = "TIDE_T_BYTES",
     .kind = TIDE_KNOB_BYTES,
     .def = "64M",
     .help = "a size",
     TIDE_KNOB_FIELD(params, bytes)},
    {.name = "TIDE_T_MODE",
     .kind = TIDE_KNOB_CHOICE,
     .def = "exact",
     .choices = modes,
     .help = "a mode",
     TIDE_KNOB_FIELD(params, mode)},
    {.name = "TIDE_T_MODEL",
     .kind = TIDE_KNOB_NAME,
     .def = "ar",
     .known = known_model,
     .names = model_names,
     .help = "a model",
     .option = "--model",
     TIDE_KNOB_FIELD(params, model)},
    {.name = "TIDE_T_PATH",
     .kind = TIDE_KNOB_PATH,
     .unset = "no file",
     .help = "a file",
     .owner = "someone else",
     TIDE_KNOB_FIELD(params, path)},
    {.name = "TIDE_T_CPU",
     .kind = TIDE_KNOB_CUSTOM,
     .def = "off",
     .set = set_cpu,
     .allowed = "off or a CPU in [0, 9]",
     .help = "a CPU",
     TIDE_KNOB_FIELD(params, cpu)},
};

static const tide_knob_table table = {.title = "Test",
                                      .owner = "test",
                                      .rows = rows,
                                      .n = sizeof rows / sizeof *rows,
                                      .prefix = "TIDE_T_",
                                      .what = "a test knob"};

/* Setting name=value fails with exactly the line want and leaves the params as they were. */
static void expect_bad(params *p, const char *name, const char *value, const char *want)
{
    params before = *p;
    char err[256] = "";
    tide_knob_place place = {&table, p};
    int rc = tide_knob_set(&place, 1, name, value, "a Tide variable", err, sizeof err);
    CHECK(rc == TIDE_KNOB_ERR_CONFIG, "%s=%s accepted", name, value);
    CHECK(strcmp(err, want) == 0, "%s=%s:\n  got  %s\n  want %s", name, value, err, want);
    CHECK(memcmp(&before, p, sizeof before) == 0, "%s=%s changed the params", name, value);
}

static void set_ok(params *p, const char *name, const char *value)
{
    char err[256] = "";
    CHECK(tide_knob_parse(tide_knob_find(&table, name), p, value, err, sizeof err) == 0, "%s", err);
}

static void defaults_and_values(void)
{
    params p;
    memset(&p, 0, sizeof p);
    char err[256];
    CHECK(tide_knob_table_valid(&table, err, sizeof err) == 0, "%s", err);
    CHECK(tide_knob_defaults(&table, &p, err, sizeof err) == 0, "%s", err);
    CHECK(p.count == 4 && p.seed == 1 && p.weight == 3 && p.factor == 0.5 && p.guard == 2 &&
              p.bytes == 64u << 20 && p.mode == 1 && strcmp(p.model, "ar") == 0 && !p.path[0] &&
              p.cpu == -1,
          "defaults");
    set_ok(&p, "TIDE_T_SEED", "2147483647");
    set_ok(&p, "TIDE_T_WEIGHT", "10");
    set_ok(&p, "TIDE_T_GUARD", "0");
    set_ok(&p, "TIDE_T_BYTES", "3K");
    set_ok(&p, "TIDE_T_MODE", "fast");
    set_ok(&p, "TIDE_T_MODEL", "mean");
    set_ok(&p, "TIDE_T_PATH", "/tmp/x");
    set_ok(&p, "TIDE_T_CPU", "7");
    CHECK(p.seed == 2147483647u && p.weight == 10 && p.guard == 0 && p.bytes == 3072 &&
              p.mode == 0 && strcmp(p.model, "mean") == 0 && strcmp(p.path, "/tmp/x") == 0 &&
              p.cpu == 7,
          "values stored");
}

static void bad_values(void)
{
    params p;
    memset(&p, 0, sizeof p);
    tide_knob_defaults(&table, &p, NULL, 0);
    expect_bad(&p, "TIDE_T_COUNT", "0",
               "TIDE_T_COUNT='0' is invalid: expected an integer in [1, 64]");
    expect_bad(&p, "TIDE_T_COUNT", " 3",
               "TIDE_T_COUNT=' 3' is invalid: expected an integer in [1, 64]");
    expect_bad(&p, "TIDE_T_COUNT", "2x",
               "TIDE_T_COUNT='2x' is invalid: expected an integer in [1, 64]");
    expect_bad(&p, "TIDE_T_COUNT", "",
               "TIDE_T_COUNT='' is invalid: expected an integer in [1, 64]");
    expect_bad(&p, "TIDE_T_WEIGHT", "1.5",
               "TIDE_T_WEIGHT='1.5' is invalid: expected an integer in [0, 10]");
    expect_bad(&p, "TIDE_T_FACTOR", "nan",
               "TIDE_T_FACTOR='nan' is invalid: expected a number in [0, 1]");
    expect_bad(&p, "TIDE_T_FACTOR", "1e999",
               "TIDE_T_FACTOR='1e999' is invalid: expected a number in [0, 1]");
    expect_bad(&p, "TIDE_T_GUARD", "1",
               "TIDE_T_GUARD='1' is invalid: expected 0 (off) or a number in (1, 1000]");
    expect_bad(&p, "TIDE_T_BYTES", "0",
               "TIDE_T_BYTES='0' is invalid: expected a positive byte "
               "count, optionally with suffix K, M or G (e.g. 64M)");
    expect_bad(&p, "TIDE_T_BYTES", "1T",
               "TIDE_T_BYTES='1T' is invalid: expected a positive byte "
               "count, optionally with suffix K, M or G (e.g. 64M)");
    expect_bad(&p, "TIDE_T_MODE", "slow",
               "TIDE_T_MODE='slow' is invalid: expected one of fast, exact");
    expect_bad(&p, "TIDE_T_MODEL", "nn", "TIDE_T_MODEL='nn' is invalid: expected one of ar, mean");
    expect_bad(&p, "TIDE_T_PATH", "",
               "TIDE_T_PATH='' is invalid: expected a path shorter than 16 bytes");
    expect_bad(&p, "TIDE_T_PATH", "/0123456789abcde",
               "TIDE_T_PATH='/0123456789abcde' is invalid: expected a path shorter than 16 bytes");
    expect_bad(&p, "TIDE_T_CPU", "10",
               "TIDE_T_CPU='10' is invalid: expected off or a CPU in [0, 9]");
    expect_bad(&p, "TIDE_T_COUNTS", "1",
               "TIDE_T_COUNTS is not a test knob; did you mean TIDE_T_COUNT?");
    expect_bad(&p, "TIDE_T_ZZZ", "1", "TIDE_T_ZZZ is not a test knob");
    expect_bad(&p, "TIDE_OTHER", "1", "TIDE_OTHER is not a Tide variable");
}

/* Unknown names: a misspelling (by the edit distance, or under a table's prefix) and another
 * program's variable are told apart, and the nearest knob is offered. */
static void unknown_names(void)
{
    CHECK(tide_knob_distance("TIDE_T_SEED", "TIDE_T_SEED") == 0, "same name");
    CHECK(tide_knob_distance("TIDE_T_SEDE", "TIDE_T_SEED") == 1, "a swap is one edit");
    CHECK(tide_knob_distance("TIDE_T_COUNTS", "TIDE_T_COUNT") == 1, "an insertion");
    CHECK(tide_knob_distance("TIDE_HOME", "TIDE_TOOL") == 3, "three substitutions");
    CHECK(tide_knob_distance("", "TIDE") == 4, "from empty");
    params p;
    tide_knob_place place = {&table, &p};
    tide_knob_guess g = tide_knob_guess_name(&place, 1, "TIDE_T_SEDE");
    CHECK(g.close && g.owned && g.nearest && strcmp(g.nearest, "TIDE_T_SEED") == 0, "swap");
    tide_knob_table plain = table;
    plain.prefix = NULL;
    place.table = &plain;
    g = tide_knob_guess_name(&place, 1, "TIDE_T_GAURD");
    CHECK(g.close && !g.owned && strcmp(g.nearest, "TIDE_T_GUARD") == 0, "a typo, no prefix");
    g = tide_knob_guess_name(&place, 1, "TIDE_T_MOD");
    CHECK(g.close && strcmp(g.nearest, "TIDE_T_MODE") == 0, "a short typo (ties: the first row)");
    g = tide_knob_guess_name(&place, 1, "TIDE_T_CP");
    CHECK(g.close, "1 edit in a 4-character name is a typo");
    g = tide_knob_guess_name(&place, 1, "TIDE_HOME");
    CHECK(!g.close && !g.owned, "another program's variable: TIDE_HOME (nearest %s)",
          g.nearest ? g.nearest : "none");
    g = tide_knob_guess_name(&place, 1, "TIDE_SOMETHING_ELSE_ENTIRELY");
    CHECK(!g.close && !g.nearest, "nothing near enough to suggest");
}

static void stored_values(void)
{
    params p;
    memset(&p, 0, sizeof p);
    tide_knob_defaults(&table, &p, NULL, 0);
    char err[256];
    for (size_t i = 0; i < table.n; i++)
        CHECK(tide_knob_check(&rows[i], &p, err, sizeof err) == 0, "%s", err);
    p.count = 65, p.guard = 0.5, p.mode = 2;
    CHECK(tide_knob_check(&rows[0], &p, err, sizeof err) != 0 &&
              strcmp(err, "TIDE_T_COUNT='65' is invalid: expected an integer in [1, 64]") == 0,
          "%s", err);
    CHECK(tide_knob_check(&rows[4], &p, err, sizeof err) != 0 &&
              strcmp(err, "TIDE_T_GUARD='0.5' is invalid: expected 0 (off) or a number in (1, "
                          "1000]") == 0,
          "%s", err);
    CHECK(tide_knob_check(&rows[6], &p, err, sizeof err) != 0 &&
              strcmp(err, "TIDE_T_MODE='2' is invalid: expected one of fast, exact") == 0,
          "%s", err);
}

static void broken_tables(void)
{
    tide_knob bad[] = {rows[0], rows[0]};
    tide_knob_table t = {.title = "Broken", .rows = bad, .n = 1};
    char err[256];
    bad[0].def = "0";
    CHECK(tide_knob_table_valid(&t, err, sizeof err) != 0 && strstr(err, "default"), "%s", err);
    bad[1] = rows[1], t.n = 2;
    params p;
    memset(&p, 0, sizeof p);
    CHECK(tide_knob_defaults(&t, &p, err, sizeof err) != 0 && strstr(err, "TIDE_T_COUNT='0'") &&
              p.seed == 1,
          "a broken default is reported, the next row still gets its default: %s", err);
    bad[1] = rows[0], t.n = 1;
    bad[0].def = "4", bad[0].size = sizeof(double);
    CHECK(tide_knob_table_valid(&t, err, sizeof err) != 0 && strstr(err, "size"), "%s", err);
    bad[0].size = sizeof(int), bad[0].help = NULL;
    CHECK(tide_knob_table_valid(&t, err, sizeof err) != 0 && strstr(err, "help"), "%s", err);
    bad[0].help = "h", t.n = 2;
    CHECK(tide_knob_table_valid(&t, err, sizeof err) != 0 && strstr(err, "twice"), "%s", err);
    /* A name is TIDE_* or under the table's own prefix (another program's knobs). */
    bad[0].name = "OTHER_COUNT", t.n = 1;
    CHECK(tide_knob_table_valid(&t, err, sizeof err) != 0 && strstr(err, "prefix"), "%s", err);
    t.prefix = "OTHER_";
    CHECK(tide_knob_table_valid(&t, err, sizeof err) == 0, "%s", err);
}

/* The byte parser itself (BYTES rows and tide-sim's byte options): each suffix, the bounds, and
 * a refused value leaves the output alone. */
static void byte_counts(void)
{
    static const struct {
        const char *text;
        uint64_t value;
    } good[] = {{"1", 1},
                {"3072", 3072},
                {"256K", 256u << 10},
                {"64M", 64u << 20},
                {"2G", 2ull << 30},
                {"17179869183", 17179869183ull},
                {"17179869183G", 17179869183ull << 30}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t b = 0;
        CHECK(tide_knob_read_bytes(good[i].text, &b) && b == good[i].value, "%s read as %llu",
              good[i].text, (unsigned long long)b);
    }
    static const char *const bad[] = {
        "",   "0",   "0K", "-1",   " 1",          "1 ",   "+1",  "1k",
        "1T", "1KB", "K",  "1.5M", "17179869184", "0x10", "1e3", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t b = 7;
        CHECK(!tide_knob_read_bytes(bad[i], &b) && b == 7, "'%s' accepted", bad[i]);
    }
}

static void markdown(void)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    const tide_knob_table *const tables[] = {&table};
    tide_knob_markdown(f, tables, 1);
    fclose(f);
    CHECK(strstr(text, "## Test\n"), "heading");
    CHECK(strstr(text, "| `TIDE_T_COUNT` | `4` | an integer in [1, 64] | test | a count \\| with "
                       "a bar |\n"),
          "escaped row:\n%s", text);
    CHECK(strstr(text, "| `TIDE_T_PATH` | no file | a path shorter than 16 bytes | someone else |"),
          "unset row:\n%s", text);
    free(text);
}

int main(void)
{
    defaults_and_values();
    bad_values();
    unknown_names();
    stored_values();
    broken_tables();
    byte_counts();
    markdown();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("knob parser: all checks passed\n");
    return failures != 0;
}
