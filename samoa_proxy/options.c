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
    "usage: samoa_proxy [--depth D | --cells N] [--sections-per-rank S] [--steps T]\n"
    "                   [--kernel compute|sleep] [--cost-us DRY,WET,COAST] [--cost-scale F]\n"
    "                   [--coast-work K] [--cfl C] [--jitter P:F] [--disturb P:F]\n"
    "                   [--noise-seed S] [--vtk DIR] [--vtk-every K] [--verify]\n"
    "                   [--calibrate] [--help]\n"
    "Thacker's oscillating lake on a Sierpinski-ordered triangle grid; every rank's cells are cut\n"
    "into S sections, one Tide task each per time step. See docs/samoa_proxy.md.\n"
    "  --depth D            bisection depth, 2*2^D cells, 0..20 (default 10)\n"
    "  --cells N            the smallest depth with at least N cells instead\n"
    "  --sections-per-rank  tasks per rank and step, 1..65536 (default 8)\n"
    "  --steps T            time steps, >= 1 (default 100)\n"
    "  --kernel             compute: real numerics only; sleep: numerics plus a sleep of the\n"
    "                       section's modelled cost (default compute)\n"
    "  --cost-us D,W,C      sleep kernel: microseconds per dry, wet, coastline cell\n"
    "                       (default: calibrated from the compute kernel, times --cost-scale)\n"
    "  --cost-scale F       multiplies calibrated costs, > 0 (default 1)\n"
    "  --coast-work K       extra flux evaluations of a coastline cell, 0..1000 (default 4)\n"
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

int samoa_options_parse(int argc, char **argv, samoa_options *o, char *err, size_t errlen)
{
    *o = (samoa_options){
        .depth = 10, .sections = 8, .steps = 100, .cost_scale = 1.0, .coast_work = 4, .cfl = 0.45};
    o->noise = noise_spec_default();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = 1;
            continue;
        }
        if (!strcmp(a, "--verify")) {
            o->verify = 1;
            continue;
        }
        if (!strcmp(a, "--calibrate")) {
            o->calibrate = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            snprintf(err, errlen, "samoa_proxy: unexpected argument '%s' (see --help)", a);
            return 2;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--depth") || !strcmp(a, "--cells") || !strcmp(a, "--sections-per-rank") ||
            !strcmp(a, "--steps") || !strcmp(a, "--kernel") || !strcmp(a, "--cost-us") ||
            !strcmp(a, "--cost-scale") || !strcmp(a, "--coast-work") || !strcmp(a, "--cfl") ||
            !strcmp(a, "--vtk") || !strcmp(a, "--vtk-every") || !strcmp(a, "--jitter") ||
            !strcmp(a, "--disturb") || !strcmp(a, "--noise-seed")) {
            if (!val) {
                snprintf(err, errlen, "samoa_proxy: %s needs a value (see --help)", a);
                return 2;
            }
            i++;
        } else {
            snprintf(err, errlen, "samoa_proxy: unknown option '%s' (see --help)", a);
            return 2;
        }
        if (!strcmp(a, "--depth")) {
            if (parse_long(val, 0, SAMOA_GRID_MAX_DEPTH, &v))
                return fail(err, errlen, a, val, "0..20");
            o->depth = (int)v;
        } else if (!strcmp(a, "--cells")) {
            long max = 2L << SAMOA_GRID_MAX_DEPTH;
            if (parse_long(val, 1, max, &v)) return fail(err, errlen, a, val, "1..2097152");
            int d = 0;
            while ((2L << d) < v)
                d++;
            o->depth = d;
        } else if (!strcmp(a, "--sections-per-rank")) {
            if (parse_long(val, 1, 65536, &v)) return fail(err, errlen, a, val, "1..65536");
            o->sections = (int)v;
        } else if (!strcmp(a, "--steps")) {
            if (parse_long(val, 1, 100000000, &v)) return fail(err, errlen, a, val, "1..100000000");
            o->steps = (int)v;
        } else if (!strcmp(a, "--kernel")) {
            if (!strcmp(val, "compute"))
                o->kernel = SAMOA_KERNEL_COMPUTE;
            else if (!strcmp(val, "sleep"))
                o->kernel = SAMOA_KERNEL_SLEEP;
            else
                return fail(err, errlen, a, val, "compute or sleep");
        } else if (!strcmp(a, "--cost-us")) {
            if (parse_costs(val, o->cost_us))
                return fail(err, errlen, a, val, "three numbers >= 0, DRY,WET,COAST");
            o->have_costs = 1;
        } else if (!strcmp(a, "--cost-scale")) {
            if (parse_double(val, &o->cost_scale) || !(o->cost_scale > 0))
                return fail(err, errlen, a, val, "a number > 0");
        } else if (!strcmp(a, "--coast-work")) {
            if (parse_long(val, 0, 1000, &v)) return fail(err, errlen, a, val, "0..1000");
            o->coast_work = (int)v;
        } else if (!strcmp(a, "--cfl")) {
            if (parse_double(val, &o->cfl) || !(o->cfl > 0 && o->cfl <= 0.5))
                return fail(err, errlen, a, val, "a number in (0, 0.5]");
        } else if (!strcmp(a, "--jitter") || !strcmp(a, "--disturb")) {
            noise_event *e = !strcmp(a, "--jitter") ? &o->noise.jitter : &o->noise.disturb;
            if (noise_event_parse(val, e))
                return fail(err, errlen, a, val, "P:F with P in [0, 1] and F in [1, 1000]");
        } else if (!strcmp(a, "--noise-seed")) {
            if (parse_long(val, 0, 2147483647L, &v))
                return fail(err, errlen, a, val, "an integer in [0, 2^31)");
            o->noise.seed = (uint64_t)v;
        } else if (!strcmp(a, "--vtk")) {
            if (!*val) return fail(err, errlen, a, val, "a directory");
            o->vtk_dir = val;
        } else if (!strcmp(a, "--vtk-every")) {
            if (parse_long(val, 0, 100000000, &v))
                return fail(err, errlen, a, val, "an integer >= 0");
            o->vtk_every = (int)v;
        }
    }
    return 0;
}

int samoa_options_check_ranks(const samoa_options *o, int nranks, char *err, size_t errlen)
{
    int64_t cells = INT64_C(2) << o->depth;
    if (cells < (int64_t)nranks * o->sections) {
        snprintf(err, errlen,
                 "samoa_proxy: --depth %d gives %lld cells, fewer than %d ranks x %d sections",
                 o->depth, (long long)cells, nranks, o->sections);
        return 2;
    }
    return 0;
}
