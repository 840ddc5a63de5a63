/* Command line of mxm: parsed without MPI, so that a bad option is reported once. */
#ifndef MXM_OPTIONS_H
#define MXM_OPTIONS_H

#include "kernel.h"
#include "noise.h"

#include <stddef.h>

#define MXM_MAX_SIZES 16
#define MXM_MAX_LIST 4096

typedef struct mxm_slow {
    int rank;
    double factor;
} mxm_slow;

typedef struct mxm_options {
    int iters;
    int size; /* --size: every task's size without --sizes; the size --task-ms gives the time of */
    int nsizes;
    int sizes[MXM_MAX_SIZES]; /* --sizes, else the one --size */
    double mix[MXM_MAX_SIZES];
    int imb;    /* preset, used when ntasks == 0 */
    int base;   /* --tasks-per-rank */
    int ntasks; /* entries of --tasks */
    int tasks[MXM_MAX_LIST];
    mxm_kernel kernel;
    double task_ms; /* --task-ms, 0 = calibrate */
    int nslow;
    mxm_slow slow[MXM_MAX_LIST];
    int slow_from;
    noise_spec noise; /* --jitter, --disturb, --noise-seed */
    int print_noise;  /* --print-noise: the slowed tasks per rank and iteration */
    int verify;
    unsigned long seed;
    int print_preset; /* --print-preset: needs --ranks */
    int ranks;
    int calibrate; /* --calibrate: print the calibration and exit */
    int help;
} mxm_options;

/* Parses argv[1..argc-1]. Returns 0, or -1 with one line (no newline) in err. */
int mxm_options_parse(int argc, char **argv, mxm_options *o, char *err, size_t errlen);

/* Checks what needs the rank count: --tasks entries and --slow ranks. */
int mxm_options_check_ranks(const mxm_options *o, int nranks, char *err, size_t errlen);

extern const char mxm_usage[];

#endif
