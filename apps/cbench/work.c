/* Work kernels and their calibration (work.h). The loops carry a dependency from one iteration
 * to the next so that they cannot be vectorized away, which keeps "iterations per ms" stable. */
#define _POSIX_C_SOURCE 200809L
#include "work.h"

#include <errno.h>
#include <time.h>

double cbench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Not inlined and with an empty asm barrier per step: inlined into the calibration, gcc 12 -O2
 * computed the integer recurrence without running the loop (a million times "faster" than the
 * same loop called from run.c), which made the calibration meaningless. */
__attribute__((noinline)) uint32_t cbench_work(cbench_int_op op, int64_t iters)
{
    if (op == CBENCH_WORK_INT) {
        uint32_t x = 12345u;
        for (int64_t k = 0; k < iters; k++) {
            x = x * 1103515245u + 12345u;
            __asm__ volatile("" : "+r"(x));
        }
        return x;
    }
    float f = 1.0f;
    for (int64_t k = 0; k < iters; k++) {
        f = f * 0.999999f + 0.000001f;
        __asm__ volatile("" : "+m"(f)); /* "+m": portable to any target */
    }
    return (uint32_t)(f * 1000.0f);
}

double cbench_work_calibrate(cbench_int_op op)
{
    /* Grow the loop until one run takes 20 ms (timer noise well below 1%), then keep the
     * best of three runs at that size: interference only ever makes a run slower. */
    int64_t iters = 1 << 16;
    volatile uint32_t sink = 0;
    double dt;
    for (;;) {
        double t0 = cbench_now();
        sink += cbench_work(op, iters);
        dt = cbench_now() - t0;
        if (dt >= 0.02 || iters >= (INT64_C(1) << 36)) break;
        iters *= 2;
    }
    for (int rep = 0; rep < 3; rep++) {
        double t0 = cbench_now();
        sink += cbench_work(op, iters);
        double d = cbench_now() - t0;
        if (d < dt) dt = d;
    }
    (void)sink;
    return (double)iters / (dt * 1e3);
}

void cbench_sleep_us(int64_t us)
{
    if (us <= 0) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(us / 1000000);
    ts.tv_nsec += (long)(us % 1000000) * 1000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}
