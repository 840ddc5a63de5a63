/* The packing plan of one node: which CPUs the node holds, how its ranks are packed onto them.
 * Pure function of plain arrays (times, CPU masks, the CPU -> NUMA map), no MPI. */
#ifndef TASKPACK_PLAN_H
#define TASKPACK_PLAN_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

#include "pack.h"

/* Times are discretized to this many units per bin before packing. */
#define TP_PLAN_SCALE (1 << 20)

struct tp_plan_input {
    int n;                  /* ranks on the node */
    const double *t;        /* iteration time of each rank (seconds, >= 0) */
    const cpu_set_t *mask;  /* original affinity of each rank */
    double cap;             /* bin capacity: t_max x (1 + slack) */
    int exact_max;          /* largest group packed exactly */
    const int *numa_of_cpu; /* NUMA domain of each CPU id, or NULL when unknown */
    int ncpu;               /* entries of numa_of_cpu */
};

struct tp_plan {
    int pool_size;         /* CPUs the node holds: from the union of masks, at most one per rank */
    int pool[CPU_SETSIZE]; /* those CPUs, ascending */
    int bins;              /* CPUs the packing uses (== pool_size when nothing can be freed) */
    int lower_bound;       /* ceil(sum t / cap) summed over groups */
    int predicted_freed;   /* pool_size - bins */
    int groups;            /* NUMA groups packed separately (1 without NUMA alignment) */
    enum tp_algo algo;     /* algorithm of the largest group */
    int *cpu;              /* n entries: the CPU each rank moves to, or -1 to stay */
};

/* Fill *plan (plan->cpu must point at n ints). Returns 0, or -1 on bad input or no memory.
 * Ranks move only when the packing frees at least one CPU. */
int tp_plan_node(const struct tp_plan_input *in, struct tp_plan *plan);

/* The CPUs a node holds (ascending, into pool[CPU_SETSIZE]): from the union of the n masks, at
 * most one per rank. Returns how many. */
int tp_plan_pool(const cpu_set_t *mask, int n, int *pool);

/* Paper's eq. 5: sum t / (t_max x n); 1 is perfect balance. 1 when t_max is 0. */
double tp_imbalance(const double *t, int n, double t_max);

#endif
