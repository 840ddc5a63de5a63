/* Command line of samoa_proxy (docs/samoa_proxy.md). Pure parsing: no MPI, no Tide. */
#ifndef SAMOA_OPTIONS_H
#define SAMOA_OPTIONS_H

#include "noise.h"

#include <stddef.h>

typedef enum samoa_kernel { SAMOA_KERNEL_COMPUTE, SAMOA_KERNEL_SLEEP } samoa_kernel;

typedef struct samoa_options {
    int depth;       /* grid: 2 * 2^depth cells; with adaptation, the maximum depth */
    int min_depth;   /* adaptation coarsens down to it; == depth: a uniform grid, no adaptation;
                      * -1 after parsing: the default, which samoa_options_fit_ranks sets */
    int uniform;     /* --uniform: min_depth = depth */
    int adapt_every; /* adapt the mesh every K steps */
    int repartition_every; /* repartition the curve every R adaptations; 0: never */
    double refine_slope;   /* refine where |d(h + b)| / distance between wet cells exceeds it */
    double refine_depth;   /* the criterion's water: h above it */
    int sections;          /* per rank: tasks per rank and step */
    int steps;
    double t_end; /* > 0: run until this simulated time instead of --steps */
    samoa_kernel kernel;
    const char *vtk_dir; /* NULL: no VTK output */
    int vtk_every;       /* write every k steps (and the last); 0: only the last */
    int verify;
    int have_costs;    /* --cost-us given */
    double cost_us[3]; /* sleep kernel: per-cell cost of dry, wet, coast cells */
    double cost_scale; /* multiplies calibrated costs */
    int coast_work;    /* extra flux evaluations per coastline cell */
    double cfl;
    noise_spec noise; /* --jitter, --disturb, --noise-seed */
    int calibrate;    /* print the calibrated per-class costs and exit */
    int help;
} samoa_options;

extern const char samoa_usage[];

/* Parses argv into o (defaults first). 0 on success; 2 with one line "samoa_proxy: ..." in err
 * naming the option, the value and what is allowed. */
int samoa_options_parse(int argc, char **argv, samoa_options *o, char *err, size_t errlen);

/* The default min depth: this many levels below the depth (Thacker's lake and its band at the
 * finest level, the land coarsened 32-fold), unless the coarsest mesh would then leave a section
 * without a cell. */
#define SAMOA_DEFAULT_LEVELS 5

/* Sets the default min depth for the job size, depth - SAMOA_DEFAULT_LEVELS (at least 0) raised
 * until its uniform mesh has ranks x sections cells (at most to the depth), and checks the
 * options against the job size; 0 or 2 with a message in err. */
int samoa_options_fit_ranks(samoa_options *o, int nranks, char *err, size_t errlen);

#endif
