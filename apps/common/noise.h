/* Seeded, reproducible noise for the applications' tasks: jitter (single tasks take longer) and
 * disturbance (all tasks of one rank in one iteration take longer, like OS noise or a
 * neighbour's job). Whether a task is slowed is a pure function of (seed, iteration, origin
 * rank, task index), so the application decides it when it creates the task and sends the factor
 * along with it: the noise of a run depends neither on where its tasks run nor on thread timing.
 * Shared by apps/mxm and samoa_proxy (docs/mxm.md, docs/samoa_proxy.md). No MPI, no Tide. */
#ifndef APP_NOISE_H
#define APP_NOISE_H

#include <stdint.h>

/* With probability p, f times longer. p = 0 (the default) is off. */
typedef struct noise_event {
    double p; /* in [0, 1] */
    double f; /* in [1, 1000] */
} noise_event;

typedef struct noise_spec {
    noise_event jitter;  /* drawn per task */
    noise_event disturb; /* drawn per rank and iteration; applies to all the rank's tasks */
    uint64_t seed;
} noise_spec;

/* No noise, seed 1: the applications' defaults. */
noise_spec noise_spec_default(void);

/* Parses "P:F" with P in [0, 1] and F in [1, 1000]. Returns 0, or -1 (e untouched). */
int noise_event_parse(const char *s, noise_event *e);

/* The uniform number in [0, 1) of a (seed, stream, iteration, rank, index), equidistributed and
 * uncorrelated across all five (splitmix64 over them in turn). */
double noise_uniform(uint64_t seed, uint64_t stream, uint64_t iter, uint64_t rank, uint64_t index);

/* Whether task `task` created by `rank` in iteration `iter` is jittered. */
int noise_jittered(const noise_spec *s, int64_t iter, int rank, int64_t task);

/* Whether `rank`'s tasks of iteration `iter` are disturbed. */
int noise_disturbed(const noise_spec *s, int64_t iter, int rank);

/* How many times longer that task takes: jitter.f if it is jittered, times disturb.f if its
 * rank's iteration is disturbed; 1 when neither. */
double noise_factor(const noise_spec *s, int64_t iter, int rank, int64_t task);

#endif
