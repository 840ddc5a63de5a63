#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char mxm_usage[] =
    "usage: mxm [options]   (run with mpiexec; Tide knobs are TIDE_* environment variables)\n"
    "  --iters N            iterations (default 10)\n"
    "  --size n             matrix size of every task (default 300)\n"
    "  --sizes a,b,...      several task sizes, with --mix w1,w2,... weights (default equal);\n"
    "                       --size then only names the size --task-ms gives the time of\n"
    "  --imb 0|1|2|3        imbalance preset: baseline R_imb 0, 0.5, 1.5, 3.0 (default 0)\n"
    "  --tasks-per-rank B   average tasks per rank and iteration for --imb (default 16)\n"
    "  --tasks a,b,...      explicit tasks per rank (one entry per rank), instead of --imb\n"
    "  --kernel compute|sleep  real multiply (default) or a sleep of the modelled time\n"
    "  --task-ms MS         sleep kernel: time of a --size task, other sizes scale with n^3\n"
    "                       (default: calibrated on rank 0)\n"
    "  --slow R:F[,...]     tasks executing on rank R take F times longer\n"
    "  --slow-from ITER     the slowdown starts at iteration ITER (default 0)\n"
    "  --jitter P:F         each task, with probability P, takes F times longer (default off)\n"
    "  --disturb P:F        each rank, in each iteration, with probability P has all its tasks\n"
    "                       take F times longer (default off); P in [0, 1], F in [1, 1000]\n"
    "  --noise-seed S       seed of --jitter and --disturb (default 1): the same seed slows the\n"
    "                       same tasks in every run, wherever they run\n"
    "  --print-noise        print how many tasks the noise slowed per rank and iteration\n"
    "  --verify             check every result; exit code 1 when one is wrong\n"
    "  --seed S             seed of the matrices and the size mix (default 1)\n"
    "  --print-preset --ranks P  print the task counts of the preset and exit (no MPI)\n"
    "  --calibrate          print the calibrated task time of each size and exit (no MPI)\n"
    "exit codes: 0 ok, 1 verification failed, 2 bad options or configuration\n";

static int fail(char *err, size_t len, const char *opt, const char *value, const char *allowed)
{
    snprintf(err, len, "mxm: %s '%s' is invalid: expected %s", opt, value ? value : "", allowed);
    return -1;
}

static int to_long(const char *s, long min, long max, long *out)
{
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static int to_double(const char *s, double min, double max, double *out)
{
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < min || v > max) return -1;
    *out = v;
    return 0;
}

/* Splits a comma list into at most `max` tokens of at most 63 characters. */
static int split(const char *s, char tok[][64], int max)
{
    int n = 0;
    if (!s || !*s) return -1;
    for (const char *p = s;; n++) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (n >= max || len == 0 || len >= 64) return -1;
        memcpy(tok[n], p, len);
        tok[n][len] = 0;
        if (!c) return n + 1;
        p = c + 1;
    }
}

static char tokens[MXM_MAX_LIST][64];

static int parse_int_list(const char *s, long min, long max, int *out, int maxn)
{
    int n = split(s, tokens, maxn);
    for (int i = 0; i < n; i++) {
        long v;
        if (to_long(tokens[i], min, max, &v)) return -1;
        out[i] = (int)v;
    }
    return n;
}

static int parse_slow(const char *s, mxm_options *o)
{
    int n = split(s, tokens, MXM_MAX_LIST);
    for (int i = 0; i < n; i++) {
        char *colon = strchr(tokens[i], ':');
        long r;
        if (!colon) return -1;
        *colon = 0;
        if (to_long(tokens[i], 0, 1 << 20, &r) ||
            to_double(colon + 1, 1.0, 1000.0, &o->slow[i].factor))
            return -1;
        o->slow[i].rank = (int)r;
    }
    o->nslow = n;
    return n;
}

/* Options that set an int field to an integer in [min, max]. */
static const struct int_option {
    const char *name;
    long min, max;
    const char *allowed;
    size_t field; /* offsetof the int in mxm_options */
} int_options[] = {
    {"--iters", 0, 1000000, "an integer in [0, 1000000]", offsetof(mxm_options, iters)},
    {"--size", 1, 8192, "an integer in [1, 8192]", offsetof(mxm_options, size)},
    {"--imb", 0, 3, "0, 1, 2 or 3", offsetof(mxm_options, imb)},
    {"--tasks-per-rank", 1, 1000000, "an integer in [1, 1000000]", offsetof(mxm_options, base)},
    {"--slow-from", 0, 1000000, "an integer in [0, 1000000]", offsetof(mxm_options, slow_from)},
    {"--ranks", 1, 1 << 20, "a positive integer", offsetof(mxm_options, ranks)},
};

/* Options without a value that set an int field to 1. */
static const struct flag_option {
    const char *name;
    size_t field;
} flag_options[] = {
    {"--verify", offsetof(mxm_options, verify)},
    {"--print-noise", offsetof(mxm_options, print_noise)},
    {"--print-preset", offsetof(mxm_options, print_preset)},
    {"--calibrate", offsetof(mxm_options, calibrate)},
    {"--help", offsetof(mxm_options, help)},
    {"-h", offsetof(mxm_options, help)},
};

static int *int_field(mxm_options *o, size_t field)
{
    return (int *)((char *)o + field);
}

static void set_defaults(mxm_options *o)
{
    memset(o, 0, sizeof *o);
    o->iters = 10;
    o->size = 300;
    o->mix[0] = 1.0;
    o->base = 16;
    o->kernel = MXM_KERNEL_COMPUTE;
    o->seed = 1;
    o->noise = noise_spec_default();
}

/* Option a of int_options with value v: 1 when taken, 0 when a is none of them, -1 when v is
 * out of range. The same for the parse_* below. */
static int parse_int_option(const char *a, const char *v, mxm_options *o, char *err, size_t len)
{
    for (size_t k = 0; k < sizeof int_options / sizeof int_options[0]; k++) {
        const struct int_option *io = &int_options[k];
        long l;
        if (strcmp(a, io->name)) continue;
        if (to_long(v, io->min, io->max, &l)) return fail(err, len, a, v, io->allowed);
        *int_field(o, io->field) = (int)l;
        return 1;
    }
    return 0;
}

/* --sizes, --mix, --tasks and --slow; *nmix counts the --mix weights. */
static int parse_list_option(const char *a, const char *v, mxm_options *o, int *nmix, char *err,
                             size_t len)
{
    if (!strcmp(a, "--sizes")) {
        int n = parse_int_list(v, 1, 8192, o->sizes, MXM_MAX_SIZES);
        if (n < 1) return fail(err, len, a, v, "up to 16 comma-separated sizes in [1, 8192]");
        o->nsizes = n;
    } else if (!strcmp(a, "--mix")) {
        *nmix = split(v, tokens, MXM_MAX_SIZES);
        for (int k = 0; k < *nmix; k++)
            if (to_double(tokens[k], 0.0, 1e9, &o->mix[k])) *nmix = -1;
        if (*nmix < 1) return fail(err, len, a, v, "comma-separated non-negative weights");
    } else if (!strcmp(a, "--tasks")) {
        int n = parse_int_list(v, 0, 1000000, o->tasks, MXM_MAX_LIST);
        if (n < 1) return fail(err, len, a, v, "comma-separated task counts in [0, 1000000]");
        o->ntasks = n;
    } else if (!strcmp(a, "--slow")) {
        if (parse_slow(v, o) < 1)
            return fail(err, len, a, v, "RANK:FACTOR[,...] with FACTOR in [1, 1000]");
    } else {
        return 0;
    }
    return 1;
}

/* --kernel, --task-ms, --jitter, --disturb, --noise-seed and --seed. */
static int parse_run_option(const char *a, const char *v, mxm_options *o, char *err, size_t len)
{
    long l;
    if (!strcmp(a, "--kernel")) {
        if (v && !strcmp(v, "compute"))
            o->kernel = MXM_KERNEL_COMPUTE;
        else if (v && !strcmp(v, "sleep"))
            o->kernel = MXM_KERNEL_SLEEP;
        else
            return fail(err, len, a, v, "compute or sleep");
    } else if (!strcmp(a, "--task-ms")) {
        if (to_double(v, 1e-6, 1e6, &o->task_ms) || o->task_ms <= 0)
            return fail(err, len, a, v, "a positive number of milliseconds");
    } else if (!strcmp(a, "--jitter") || !strcmp(a, "--disturb")) {
        noise_event *e = !strcmp(a, "--jitter") ? &o->noise.jitter : &o->noise.disturb;
        if (noise_event_parse(v, e))
            return fail(err, len, a, v, "P:F with P in [0, 1] and F in [1, 1000]");
    } else if (!strcmp(a, "--noise-seed")) {
        if (to_long(v, 0, 2147483647L, &l)) return fail(err, len, a, v, "an integer in [0, 2^31)");
        o->noise.seed = (uint64_t)l;
    } else if (!strcmp(a, "--seed")) {
        if (to_long(v, 0, 2147483647L, &l)) return fail(err, len, a, v, "an integer in [0, 2^31)");
        o->seed = (unsigned long)l;
    } else {
        return 0;
    }
    return 1;
}

static int parse_flag(const char *a, mxm_options *o)
{
    for (size_t k = 0; k < sizeof flag_options / sizeof flag_options[0]; k++)
        if (!strcmp(a, flag_options[k].name)) {
            *int_field(o, flag_options[k].field) = 1;
            return 1;
        }
    return 0;
}

/* Without --sizes the one --size; without --mix equal weights, else one per size. */
static int finish_sizes(mxm_options *o, int nmix, char *err, size_t len)
{
    if (o->nsizes == 0) {
        o->nsizes = 1;
        o->sizes[0] = o->size;
    }
    if (nmix == 0) {
        for (int k = 0; k < o->nsizes; k++)
            o->mix[k] = 1.0;
    } else if (nmix != o->nsizes) {
        snprintf(err, len, "mxm: --mix has %d weights but --sizes has %d sizes", nmix, o->nsizes);
        return -1;
    } else {
        double sum = 0;
        for (int k = 0; k < nmix; k++)
            sum += o->mix[k];
        if (sum <= 0) {
            snprintf(err, len, "mxm: --mix weights sum to 0");
            return -1;
        }
    }
    return 0;
}

/* Options that need another one. */
static int check_requirements(const mxm_options *o, char *err, size_t len)
{
    if (o->task_ms > 0 && o->kernel != MXM_KERNEL_SLEEP) {
        snprintf(err, len, "mxm: --task-ms needs --kernel sleep");
        return -1;
    }
    if (o->print_preset && o->ranks < 1) {
        snprintf(err, len, "mxm: --print-preset needs --ranks P");
        return -1;
    }
    return 0;
}

int mxm_options_parse(int argc, char **argv, mxm_options *o, char *err, size_t len)
{
    set_defaults(o);
    int nmix = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = parse_int_option(a, v, o, err, len);
        if (!took) took = parse_list_option(a, v, o, &nmix, err, len);
        if (!took) took = parse_run_option(a, v, o, err, len);
        if (took < 0) return -1;
        if (took) {
            i++; /* the value */
        } else if (!parse_flag(a, o)) {
            snprintf(err, len, "mxm: unknown option '%s' (see mxm --help)", a);
            return -1;
        }
    }
    if (finish_sizes(o, nmix, err, len)) return -1;
    return check_requirements(o, err, len);
}

int mxm_options_check_ranks(const mxm_options *o, int nranks, char *err, size_t len)
{
    if (o->ntasks && o->ntasks != nranks) {
        snprintf(err, len, "mxm: --tasks has %d entries but the job has %d ranks", o->ntasks,
                 nranks);
        return -1;
    }
    for (int i = 0; i < o->nslow; i++)
        if (o->slow[i].rank >= nranks) {
            snprintf(err, len, "mxm: --slow names rank %d but the job has %d ranks",
                     o->slow[i].rank, nranks);
            return -1;
        }
    return 0;
}
