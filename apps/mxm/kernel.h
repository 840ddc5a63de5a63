/* The work of one MxM task and the checks of its result. No MPI, no Tide. */
#ifndef MXM_KERNEL_H
#define MXM_KERNEL_H

#include <stdint.h>

typedef enum mxm_kernel { MXM_KERNEL_COMPUTE, MXM_KERNEL_SLEEP } mxm_kernel;

/* C = A * B for row-major n x n matrices (GSL's CBLAS dgemm). */
void mxm_multiply(int n, const double *a, const double *b, double *c);

/* The stand-in result of the sleep kernel: C = A + B elementwise, O(n^2), so that a result
 * that did not travel back intact is still detected by --verify. */
void mxm_sleep_result(int n, const double *a, const double *b, double *c);

/* Fills an n x n matrix with values in [-1, 1) determined by (seed, id): every rank can
 * regenerate any task's inputs. */
void mxm_fill(int n, uint64_t seed, uint64_t id, double *m);

/* Checks C = A * B by Freivalds' test (C x against A (B x) for a fixed x, O(n^2)) or, for the
 * sleep kernel, C = A + B. Returns 0 when C is right, -1 when it is not. */
int mxm_check(mxm_kernel kernel, int n, const double *a, const double *b, const double *c);

/* Seconds one n x n multiply takes on this core: the fastest of a few timed runs after a
 * warm-up. */
double mxm_calibrate(int n);

/* Sleeps until `seconds` after the CLOCK_MONOTONIC instant `start` (absolute, so the time the
 * task spent before is included). */
void mxm_sleep_until(double start, double seconds);

/* CLOCK_MONOTONIC in seconds. */
double mxm_now(void);

#endif
