#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include "grid.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char samoa_usage[] =
    "usage: samoa_proxy [--depth D | --cells N | --max-depth D] [--min-depth M | --uniform]\n"
    "                   [--adapt-every K] [--repartition-every R] [--sections-per-rank S] [--steps "
    "T]\n"
    "                   [--kernel compute|sleep] [--cost-us DRY,WET,COAST] [--cost-scale F]\n"
    "                   [--coast-work K] [--cfl C] [--jitter P:F] [--disturb P:F]\n"
    "                   [--noise-seed S] [--vtk DIR] [--vtk-every K] [--verify]\n"
    "                   [--calibrate] [--help]\n"
    "Thacker's oscillating lake on a Sierpinski-ordered triangle grid; every rank's cells are cut\n"
    "into S sections, one Tide task each per time step. See docs/samoa_proxy.md.\n"
    "  --depth D            bisection depth, 2*2^D cells, 0..20 (default 10)\n"
    "  --cells N            the smallest depth with at least N cells instead\n"
    "  --max-depth D        the same as --depth: with --min-depth, the finest level\n"
    "  --min-depth M        the adaptive mesh refines at the wet/dry front and steep surface\n"
    "                       slopes up to depth D and coarsens elsewhere down to M, 0..D (default\n"
    "                       D-5, raised until ranks x sections cells fit at M; M = D: uniform)\n"
    "  --uniform            no adaptation: a uniform grid at depth D, the same as --min-depth D\n"
    "                       (of --uniform and --min-depth, the later one counts)\n"
    "  --adapt-every K      adapt the mesh every K steps, >= 1 (default 10)\n"
    "  --repartition-every R  cut the curve into equal cell counts per rank every R adaptations\n"
    "                       (sam(oa)^2's own balancing); 0 or inf: never (default 0)\n"
    "  --refine-slope S     also refine wet cells whose free surface rises more than S per unit\n"
    "                       length to a wet neighbour, >= 0 (default 0.05: all of Thacker's lake,\n"
    "                       whose surface slope is 0.1; 0.2: only its shore)\n"
    "  --refine-depth H     the criterion counts a cell as water when h > H, > 0 (default 1e-4:\n"
    "                       the thin film the scheme spreads over land does not count)\n"
    "  --sections-per-rank  tasks per rank and step, 1..65536 (default 8)\n"
    "  --steps T            time steps, >= 1 (default 100)\n"
    "  --t-end T            run until simulated time T > 0 instead (the last step shortened)\n"
    "  --kernel             compute: real numerics only; sleep: numerics plus a sleep of the\n"
    "                       section's modelled cost (default compute)\n"
    "  --cost-us D,W,C      sleep kernel: microseconds per dry, wet, coastline cell\n"
    "                       (default: calibrated from the compute kernel, times --cost-scale)\n"
    "  --cost-scale F       multiplies calibrated costs, > 0 (default 1)\n"
    "  --coast-work K       extra flux evaluations of a coastline cell, 0..1000 (default 0)\n"
    "  --cfl C              time step fraction of the stability limit, (0, 0.5] (default 0.45)\n"
    "  --jitter P:F         each section task, with probability P, takes F times longer:\n"
    "                       sleeps F times its cost (sleep) or repeats its update round(F)\n"
    "                       times (compute); the results do not change (default off)\n"
    "  --disturb P:F        each rank, in each step, with probability P has all its section\n"
    "                       tasks take F times longer (default off); P in [0, 1], F in [1, 1000]\n"
    "  --noise-seed S       seed of --jitter and --disturb (default 1): the same seed slows the\n"
    "                       same tasks in every run, wherever they run\n"
    "  --vtk DIR            write legacy-VTK files lake_NNNN.vtk into DIR (must exist)\n"
    "  --vtk-every K        also every K steps, >= 0 (default 0: the last step only)\n"
    "  --verify             exit 1 unless mass is conserved to 1e-12 and depths stay >= 0\n"
    "  --calibrate          print the compute kernel's cost per cell class and exit\n";

static int fail(char *err, size_t errlen, const char *opt, const char *val, const char *allowed)
{
    snprintf(err, errlen, "samoa_proxy: %s '%s' is invalid: expected %s", opt, val, allowed);
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int parse_costs(const char *s, double *c)
{
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int k = 0; k < 3; k++, tok = strtok_r(NULL, ",", &save))
        if (!tok || parse_double(tok, &c[k]) != 0 || c[k] < 0) return -1;
    return tok ? -1 : 0;
}

/* The parsers of the options that take a value: 0, or 2 with the message in err. */
typedef int (*value_parser)(const char *a, const char *val, samoa_options *o, char *err,
                            size_t errlen);

static int parse_int(const char *a, const char *val, long lo, long hi, const char *allowed,
                     int *out, char *err, size_t errlen)
{
    long v;
    if (parse_long(val, lo, hi, &v)) return fail(err, errlen, a, val, allowed);
    *out = (int)v;
    return 0;
}

static int parse_depth(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    return parse_int(a, val, 0, SAMOA_GRID_MAX_DEPTH, "0..20", &o->depth, err, errlen);
}

/* The smallest depth with at least that many cells. */
static int parse_cells(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    long v, max = 2L << SAMOA_GRID_MAX_DEPTH;
    if (parse_long(val, 1, max, &v)) return fail(err, errlen, a, val, "1..2097152");
    int d = 0;
    while ((2L << d) < v)
        d++;
    o->depth = d;
    return 0;
}

/* --min-depth and --uniform: the later one counts (a script's --uniform, then a user's
 * --min-depth). */
static int parse_min_depth(const char *a, const char *val, samoa_options *o, char *err,
                           size_t errlen)
{
    o->uniform = 0;
    return parse_int(a, val, 0, SAMOA_GRID_MAX_DEPTH, "0..20", &o->min_depth, err, errlen);
}

static int parse_adapt_every(const char *a, const char *val, samoa_options *o, char *err,
                             size_t errlen)
{
    return parse_int(a, val, 1, 100000000, "1..100000000", &o->adapt_every, err, errlen);
}

static int parse_repartition(const char *a, const char *val, samoa_options *o, char *err,
                             size_t errlen)
{
    if (!strcmp(val, "inf")) {
        o->repartition_every = 0;
        return 0;
    }
    return parse_int(a, val, 0, 100000000, "0..100000000 or inf", &o->repartition_every, err,
                     errlen);
}

static int parse_refine_slope(const char *a, const char *val, samoa_options *o, char *err,
                              size_t errlen)
{
    if (parse_double(val, &o->refine_slope) || !(o->refine_slope >= 0))
        return fail(err, errlen, a, val, "a number >= 0");
    return 0;
}

static int parse_refine_depth(const char *a, const char *val, samoa_options *o, char *err,
                              size_t errlen)
{
    if (parse_double(val, &o->refine_depth) || !(o->refine_depth > 0))
        return fail(err, errlen, a, val, "a depth > 0");
    return 0;
}

static int parse_sections(const char *a, const char *val, samoa_options *o, char *err,
                          size_t errlen)
{
    return parse_int(a, val, 1, 65536, "1..65536", &o->sections, err, errlen);
}

static int parse_steps(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    return parse_int(a, val, 1, 100000000, "1..100000000", &o->steps, err, errlen);
}

static int parse_t_end(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    if (parse_double(val, &o->t_end) || !(o->t_end > 0))
        return fail(err, errlen, a, val, "a time > 0");
    return 0;
}

static int parse_kernel(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    if (!strcmp(val, "compute"))
        o->kernel = SAMOA_KERNEL_COMPUTE;
    else if (!strcmp(val, "sleep"))
        o->kernel = SAMOA_KERNEL_SLEEP;
    else
        return fail(err, errlen, a, val, "compute or sleep");
    return 0;
}

static int parse_cost_us(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    if (parse_costs(val, o->cost_us))
        return fail(err, errlen, a, val, "three numbers >= 0, DRY,WET,COAST");
    o->have_costs = 1;
    return 0;
}

static int parse_cost_scale(const char *a, const char *val, samoa_options *o, char *err,
                            size_t errlen)
{
    if (parse_double(val, &o->cost_scale) || !(o->cost_scale > 0))
        return fail(err, errlen, a, val, "a number > 0");
    return 0;
}

static int parse_coast_work(const char *a, const char *val, samoa_options *o, char *err,
                            size_t errlen)
{
    return parse_int(a, val, 0, 1000, "0..1000", &o->coast_work, err, errlen);
}

static int parse_cfl(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    if (parse_double(val, &o->cfl) || !(o->cfl > 0 && o->cfl <= 0.5))
        return fail(err, errlen, a, val, "a number in (0, 0.5]");
    return 0;
}

/* --jitter and --disturb. */
static int parse_noise_event(const char *a, const char *val, samoa_options *o, char *err,
                             size_t errlen)
{
    noise_event *e = !strcmp(a, "--jitter") ? &o->noise.jitter : &o->noise.disturb;
    if (noise_event_parse(val, e))
        return fail(err, errlen, a, val, "P:F with P in [0, 1] and F in [1, 1000]");
    return 0;
}

static int parse_noise_seed(const char *a, const char *val, samoa_options *o, char *err,
                            size_t errlen)
{
    long v;
    if (parse_long(val, 0, 2147483647L, &v))
        return fail(err, errlen, a, val, "an integer in [0, 2^31)");
    o->noise.seed = (uint64_t)v;
    return 0;
}

static int parse_vtk(const char *a, const char *val, samoa_options *o, char *err, size_t errlen)
{
    if (!*val) return fail(err, errlen, a, val, "a directory");
    o->vtk_dir = val;
    return 0;
}

static int parse_vtk_every(const char *a, const char *val, samoa_options *o, char *err,
                           size_t errlen)
{
    return parse_int(a, val, 0, 100000000, "an integer >= 0", &o->vtk_every, err, errlen);
}

static const struct value_option {
    const char *name;
    value_parser parse;
} value_options[] = {
    {"--depth", parse_depth},
    {"--cells", parse_cells},
    {"--max-depth", parse_depth},
    {"--min-depth", parse_min_depth},
    {"--adapt-every", parse_adapt_every},
    {"--repartition-every", parse_repartition},
    {"--refine-slope", parse_refine_slope},
    {"--refine-depth", parse_refine_depth},
    {"--sections-per-rank", parse_sections},
    {"--steps", parse_steps},
    {"--t-end", parse_t_end},
    {"--kernel", parse_kernel},
    {"--cost-us", parse_cost_us},
    {"--cost-scale", parse_cost_scale},
    {"--coast-work", parse_coast_work},
    {"--cfl", parse_cfl},
    {"--vtk", parse_vtk},
    {"--vtk-every", parse_vtk_every},
    {"--jitter", parse_noise_event},
    {"--disturb", parse_noise_event},
    {"--noise-seed", parse_noise_seed},
};

static value_parser value_parser_of(const char *a)
{
    for (size_t k = 0; k < sizeof value_options / sizeof value_options[0]; k++)
        if (!strcmp(a, value_options[k].name)) return value_options[k].parse;
    return NULL;
}

/* --help, --verify, --calibrate, --uniform: 1 when a is one of them. */
static int set_flag(const char *a, samoa_options *o)
{
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
        o->help = 1;
    else if (!strcmp(a, "--verify"))
        o->verify = 1;
    else if (!strcmp(a, "--calibrate"))
        o->calibrate = 1;
    else if (!strcmp(a, "--uniform"))
        o->uniform = 1, o->min_depth = -1;
    else
        return 0;
    return 1;
}

int samoa_options_parse(int argc, char **argv, samoa_options *o, char *err, size_t errlen)
{
    *o = (samoa_options){.depth = 10,
                         .min_depth = -1,
                         .adapt_every = 10,
                         .refine_slope = 0.05,
                         .refine_depth = 1e-4,
                         .sections = 8,
                         .steps = 100,
                         .cost_scale = 1.0,
                         .cfl = 0.45};
    o->noise = noise_spec_default();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (set_flag(a, o)) continue;
        if (strncmp(a, "--", 2) != 0) {
            snprintf(err, errlen, "samoa_proxy: unexpected argument '%s' (see --help)", a);
            return 2;
        }
        value_parser parse = value_parser_of(a);
        if (!parse) {
            snprintf(err, errlen, "samoa_proxy: unknown option '%s' (see --help)", a);
            return 2;
        }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "samoa_proxy: %s needs a value (see --help)", a);
            return 2;
        }
        int rc = parse(a, argv[++i], o, err, errlen);
        if (rc) return rc;
    }
    if (o->uniform) o->min_depth = o->depth;
    if (o->min_depth > o->depth) {
        snprintf(err, errlen, "samoa_proxy: --min-depth %d is invalid: expected 0..%d (the depth)",
                 o->min_depth, o->depth);
        return 2;
    }
    return 0;
}

int samoa_options_fit_ranks(samoa_options *o, int nranks, char *err, size_t errlen)
{
    int64_t need = (int64_t)nranks * o->sections;
    if (o->min_depth < 0) { /* the default: every section keeps a cell on the coarsest mesh */
        o->min_depth = o->depth > SAMOA_DEFAULT_LEVELS ? o->depth - SAMOA_DEFAULT_LEVELS : 0;
        while (o->min_depth < o->depth && (INT64_C(2) << o->min_depth) < need)
            o->min_depth++;
    }
    int64_t cells = INT64_C(2) << o->min_depth;
    if (cells < need) {
        snprintf(err, errlen,
                 "samoa_proxy: --%s %d gives %lld cells, fewer than %d ranks x %d sections",
                 o->min_depth < o->depth ? "min-depth" : "depth", o->min_depth, (long long)cells,
                 nranks, o->sections);
        return 2;
    }
    return 0;
}
