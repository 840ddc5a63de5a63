/* The work an object does per iteration: integer or single-precision float arithmetic for a
 * calibrated number of inner-loop iterations (ComprehensiveBench's kernels), or a sleep that
 * emulates the same time. No MPI: run.c calibrates on rank 0 and broadcasts the result. */
#ifndef CBENCH_WORK_H
#define CBENCH_WORK_H

#include "params.h"

#include <stdint.h>

typedef enum cbench_kernel { CBENCH_KERNEL_WORK, CBENCH_KERNEL_SLEEP } cbench_kernel;

/* Inner-loop iterations of `op` that take one millisecond on this core (best of a few runs). */
double cbench_work_calibrate(cbench_int_op op);

/* Runs `iters` inner-loop iterations of `op`; returns a value that depends on all of them, so
 * the compiler cannot drop the loop. */
uint32_t cbench_work(cbench_int_op op, int64_t iters);

/* Sleeps `us` microseconds (monotonic clock, resumed after signals). */
void cbench_sleep_us(int64_t us);

/* Monotonic time in seconds. */
double cbench_now(void);

#endif
