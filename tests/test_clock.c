/* The runtime's clock (clock.c, TIDE_CLOCK): from the TSC, a reading lies between the
 * CLOCK_MONOTONIC readings taken just before and just after it, to within EPS, over many anchors,
 * across sleeps, after the rate's refinement, and in two threads at once; one thread's readings
 * never go back; a reading one thread publishes is not in the future of another thread's next
 * one. A rate off by 1e-3 puts a reading 1 us off within an anchor's millisecond: this fails.
 * Exit 77 (skipped) where the kernel does not keep time with the TSC, after checking that
 * TIDE_CLOCK=tsc is refused there and `monotonic` still works. Prints what a reading costs from
 * each clock. No MPI. */
#include "internal.h"
#include "test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define EPS 1e-6

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* `seconds` of readings, each between the monotonic ones around it; a pause of `pause_us` every
 * 4096 readings (0: none). Returns how many readings it checked. */
static long bracket(double seconds, int pause_us, const char *what)
{
    double end = monotonic() + seconds, last = 0;
    long n = 0;
    for (double m1 = 0; m1 < end; n++) {
        m1 = monotonic();
        double t = tide_now();
        double m2 = monotonic();
        CHECK(
            t >= m1 - EPS && t <= m2 + EPS,
            "%s: reading %ld is %.3f us before and %.3f us after the monotonic readings around it",
            what, n, 1e6 * (m1 - t), 1e6 * (t - m2));
        CHECK(t >= last, "%s: reading %ld went back by %.3g s", what, n, last - t);
        last = t;
        if (pause_us && n % 4096 == 4095) {
            struct timespec ts = {0, 1000L * pause_us};
            nanosleep(&ts, NULL);
        }
    }
    return n;
}

static atomic_uint_fast64_t published; /* a reading's bits, from the other thread */
static atomic_bool stop;

static uint64_t bits_of(double t)
{
    uint64_t b;
    memcpy(&b, &t, sizeof b);
    return b;
}

static double of_bits(uint64_t b)
{
    double t;
    memcpy(&t, &b, sizeof t);
    return t;
}

static void *other_thread(void *arg)
{
    (void)arg;
    long n = 0;
    while (!atomic_load(&stop)) {
        atomic_store(&published, bits_of(tide_now()));
        if (++n % 64 == 0) bracket(1e-4, 0, "second thread");
    }
    return NULL;
}

/* While another thread publishes its readings, each of this thread's readings taken after it saw
 * one is no earlier than that one (to EPS). */
static void two_threads(void)
{
    pthread_t th;
    atomic_store(&published, bits_of(tide_now()));
    CHECK(pthread_create(&th, NULL, other_thread, NULL) == 0, "cannot start a thread");
    double end = monotonic() + 0.3;
    long n = 0;
    while (monotonic() < end) {
        double seen = of_bits(atomic_load(&published));
        double t = tide_now();
        CHECK(t >= seen - EPS, "a reading %.3f us before the other thread's, read before it",
              1e6 * (seen - t));
        if (++n % 64 == 0) bracket(1e-4, 0, "first thread");
    }
    atomic_store(&stop, true);
    pthread_join(th, NULL);
    printf("test_clock: two threads, %ld cross-thread checks\n", n);
}

/* What a reading costs, in ns (printed, not checked: machines differ). */
static double reading_ns(void)
{
    enum { N = 1000000 };
    double sum = 0, t0 = monotonic();
    for (int i = 0; i < N; i++)
        sum += tide_now();
    double ns = 1e9 * (monotonic() - t0) / N;
    return sum > 0 ? ns : -1;
}

int main(void)
{
    char err[256] = "";
    CHECK(tide_clock_setup(TIDE_CLOCK_MONOTONIC, err, sizeof err) == TIDE_OK, "%s", err);
    CHECK(strcmp(tide_clock_name(), "monotonic") == 0, "monotonic: the clock is %s",
          tide_clock_name());
    bracket(0.05, 0, "monotonic");
    double mono_ns = reading_ns();

    CHECK(tide_clock_setup(TIDE_CLOCK_AUTO, err, sizeof err) == TIDE_OK, "%s", err);
    if (strcmp(tide_clock_name(), "tsc") != 0) {
        CHECK(tide_clock_setup(TIDE_CLOCK_TSC, err, sizeof err) == TIDE_ERR_CONFIG,
              "TIDE_CLOCK=tsc was accepted where auto did not choose the TSC");
        CHECK(strstr(err, "TIDE_CLOCK=tsc: ") == err, "the refusal says: %s", err);
        printf("test_clock: skipped the TSC's checks: %s\n", err);
        return 77;
    }
    CHECK(tide_clock_setup(TIDE_CLOCK_TSC, err, sizeof err) == TIDE_OK, "%s", err);

    /* a reading costs less than clock_gettime (its point); many anchors, each a millisecond */
    long n = bracket(0.3, 0, "tsc, busy");
    long m = bracket(0.3, 1500, "tsc, pauses longer than an anchor");
    two_threads();
    /* past the rate's refinement (a second after setup) */
    long r = bracket(0.6, 300, "tsc, refined");
    printf("test_clock: tsc: %ld, %ld and %ld readings within %.1f us of CLOCK_MONOTONIC\n", n, m,
           r, 1e6 * EPS);
    printf("test_clock: a reading costs %.1f ns from the TSC, %.1f ns from clock_gettime\n",
           reading_ns(), mono_ns);
    return 0;
}
