/* Running the benchmark on Tide's objects layer (docs/cbench.md, "Running"). */
#ifndef CBENCH_RUN_H
#define CBENCH_RUN_H

#include "params.h"
#include "work.h"

typedef struct cbench_run_opts {
    cbench_kernel kernel;       /* int_op work, or a sleep of the same time */
    const char *file;           /* the parameter file, for the report (may be NULL) */
    const char *json;           /* where rank 0 writes cbench's summary (NULL: nowhere) */
    int64_t extra_message_from; /* a test of the checks: object that sends one extra empty
                                   message in iteration 1 (-1: none) */
} cbench_run_opts;

/* Initializes Tide (and MPI), completes the configuration (p defaults to ranks x workers),
 * evaluates every expression for every object and iteration, calibrates the work, creates the
 * objects per initmap, runs r iterations, verifies every message and state, reports on rank 0
 * and finalizes. Returns the exit code: 0, 1 when a check failed (a message lost, duplicated or
 * corrupted, a state damaged), 2 for a configuration or evaluation error or a Tide failure. */
int cbench_run(cbench_config *c, const cbench_run_opts *o, int *argc, char ***argv);

/* Says a run's command-line error once for the whole job: initializes MPI so that rank 0 alone
 * prints "cbench: MSG", then finalizes. Returns the exit code, 2. */
int cbench_run_refuse(const char *msg);

#endif
