/* State shared by the PMPI wrappers (intercept.c, fortran.c), the iteration engine (engine.c)
 * and the report (report.c). One instance per process. */
#ifndef TASKPACK_INTERNAL_H
#define TASKPACK_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

#include "config.h"
#include "plan.h"

/* Consecutive iterations whose times agree within TASKPACK_TOL before packing. */
#define TP_STABLE_STEPS 3

struct tp_state {
    int configured;  /* tp_before_init ran */
    int initialized; /* tp_after_init ran */
    int active;      /* MPI initialized with a valid configuration; cleared at finalize */
    int config_bad;  /* config error: reported and exit at tp_after_init */
    char config_err[256];
    struct tp_config cfg;
    FILE *report_file; /* world rank 0: TASKPACK_REPORT, opened at MPI_Init */

    MPI_Comm world;   /* private duplicate of MPI_COMM_WORLD */
    MPI_Comm node;    /* ranks sharing memory with this one, ordered by world rank */
    MPI_Comm leaders; /* node rank 0 of every node (MPI_COMM_NULL elsewhere) */
    int rank, size, node_rank, node_size, nnodes;
    int *node_world;      /* world rank of each node rank */
    cpu_set_t orig;       /* affinity at MPI_Init */
    cpu_set_t *node_orig; /* affinity at MPI_Init of each node rank */

    MPI_Comm last_comm; /* cache of the last communicator checked against world */
    int last_comm_ok;
    int in_fortran; /* a Fortran wrapper runs: the C wrapper must not count the call again */

    int api_mode;         /* taskpack_begin was called: syncs no longer delimit iterations */
    int in_iteration;     /* an iteration started (sync left or taskpack_begin called) */
    double iter_start;    /* when it started */
    int measured;         /* the sync just entered ended a measured iteration */
    double waited;        /* time spent in collectives during this API iteration */
    double t_cur;         /* time of the iteration that just ended */
    double last_decision; /* time of the previous end-of-iteration decision, for periods */
    long iterations;      /* iterations with a measured time */
    long samples;         /* of them, after the warm-up and before packing */
    int stable_run;       /* consecutive stable steps */
    double t_window;      /* this rank's longest time over the stable run: what gets packed */
    double hist[3];       /* last three times after the warm-up */
    double t_filtered;    /* their median */

    int packed;     /* the packing step ran (whether it moved anything or not) */
    long packed_at; /* iteration after which it ran */
    double t_used;  /* this rank's time given to the packing */
    double t_max;   /* global max of t_used */
    double period_before_sum, period_after_sum;
    long period_before_n, period_after_n;
    double t_after_sum;
    long t_after_n;
    int move_failed; /* sched_setaffinity refused the planned CPU */

    /* Plan of this rank's node, known on every node rank after packing. */
    struct tp_plan plan;
    double *node_t; /* t_used of each node rank */
    int master;     /* node rank that computed the plan */
};

extern struct tp_state tp;

double tp_now(void);

/* Parse the configuration and set the MPI yield-when-idle default; before PMPI_Init. */
void tp_before_init(void);
/* Build the communicators and record affinities; after PMPI_Init. Exits on a bad config. */
void tp_after_init(void);
/* Whether a call of collective `kind` on comm delimits iterations. */
int tp_sync_counts(enum tp_sync kind, MPI_Comm comm);
/* Around the delimiting collective: the iteration ends on entry and the next starts on exit. */
void tp_sync_enter(void);
void tp_sync_exit(void);
/* Around any other intercepted collective: inside a taskpack_begin/end iteration its time is
 * waiting, not computation, and is taken out of the iteration time. tp_wait_begin returns the
 * start time, or -1 when nothing is measured. */
double tp_wait_begin(void);
void tp_wait_end(double t0);
/* Wait for a request, yielding the CPU as TASKPACK_YIELD says. */
int tp_wait(MPI_Request *req);
/* Report (collective) and release everything; before PMPI_Finalize. */
void tp_finalize(void);

/* report.c: create TASKPACK_REPORT and check that it takes a write (rank 0, at MPI_Init).
 * 0, or -1 with one line in err. */
int tp_report_open(char *err, size_t errlen);
/* Gather the per-node results, print the line and write the JSON (collective). */
void tp_report(void);

#endif
