/* tide_now, the runtime's clock: CLOCK_MONOTONIC's seconds, read from the time-stamp counter
 * where the kernel itself keeps time with it (TIDE_CLOCK).
 *
 * A fine-grained phase reads the clock twice (its start, and its task's end: worker.c), and
 * clock_gettime costs 27 ns a reading on the VMs we measure on against 10 ns for rdtsc: a tenth
 * of a one-rank Task Bench step's cost beside the kernel (docs/performance.md, section 14).
 *
 * Each thread keeps an anchor, a TSC reading and CLOCK_MONOTONIC's reading at the same moment,
 * and for at most ANCHOR_S after it converts the TSC's ticks since it with the process-wide
 * seconds per tick; then it reads CLOCK_MONOTONIC again and anchors there. So a reading never
 * strays from CLOCK_MONOTONIC by more than its anchor's error (15 ns typically; at most half the
 * longest pair taken for one, PAIR_MAX_S)
 * and ANCHOR_S times the rate's error (init's calibration: about 1e-5; the anchors a second and
 * more after it refine the rate over the time since: about 1e-8): tens of nanoseconds. Readings
 * by one thread never go back (a new anchor below the thread's last reading is held at that
 * reading until the clock passes it). Threads read the same clock to those tens of nanoseconds:
 * the kernel keeps one TSC across CPUs where its clocksource is the TSC. */
#include "internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#define ANCHOR_S 1e-3
/* A pair of readings (TSC, monotonic) whose TSC readings lie further apart than this (or than four
 * times the closest pair's at init, whichever is more) was interrupted between them: it is not an
 * anchor (an anchor is off by up to half of it). */
#define PAIR_MAX_S 0.5e-6
/* init's calibration: the closest of CALIBRATE_TRIES pairs, and again CALIBRATE_S later (the rate
 * to about 1e-5) */
#define CALIBRATE_S 2e-3
#define CALIBRATE_TRIES 64
/* anchors this long after init refine the rate (to 5e-7 at worst) */
#define REFINE_S 1.0

typedef struct anchor {
    uint64_t tsc;
    double t;
    double last; /* this thread's last reading */
} anchor;

static __thread anchor here __attribute__((tls_model("initial-exec")));

/* Written at init while no other thread of the runtime runs, before use_tsc publishes them;
 * read by every thread. */
static _Atomic bool use_tsc;
static uint64_t anchor_ticks, pair_ticks;
static uint64_t tsc0; /* calibration's first pair */
static double t0;
/* Seconds per tick: refined at every anchor (any thread) */
static _Atomic double tick_s;

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if HAVE_TSC
static inline uint64_t ticks(void)
{
    return __rdtsc();
}
#else
static inline uint64_t ticks(void)
{
    return 0;
}
#endif

/* Both clocks at one moment, the monotonic reading between two TSC readings at most `max_ticks`
 * apart; false where they were further apart (this thread was interrupted). */
static bool read_pair(uint64_t max_ticks, uint64_t *tsc, double *t)
{
    uint64_t a = ticks();
    double m = monotonic();
    uint64_t b = ticks();
    if (b - a > max_ticks) return false;
    *tsc = a + (b - a) / 2;
    *t = m;
    return true;
}

static double held(double t)
{
    if (t < here.last) return here.last;
    here.last = t;
    return t;
}

static __attribute__((noinline)) double reanchor(void)
{
    uint64_t tsc;
    double t;
    if (!read_pair(pair_ticks, &tsc, &t)) return held(monotonic());
    here.tsc = tsc;
    here.t = t;
    if (tsc > tsc0 && t - t0 > REFINE_S)
        atomic_store_explicit(&tick_s, (t - t0) / (double)(tsc - tsc0), memory_order_relaxed);
    return held(t);
}

double tide_now(void)
{
    if (!atomic_load_explicit(&use_tsc, memory_order_acquire)) return monotonic();
    uint64_t d = ticks() - here.tsc;
    if (d >= anchor_ticks) return reanchor();
    return held(here.t + (double)d * atomic_load_explicit(&tick_s, memory_order_relaxed));
}

/* Whether `flags` (a line of /proc/cpuinfo) names `flag` as one of its words. */
static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = strstr(flags, flag); p; p = strstr(p + 1, flag))
        if ((p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
            return true;
    return false;
}

/* Whether the kernel keeps time with the TSC (its clocksource) and the CPU says it ticks at one
 * rate in every power state (constant_tsc, nonstop_tsc); where not, why in `why`. */
static bool tsc_trusted(char *why, size_t len)
{
    if (!HAVE_TSC) {
        snprintf(why, len, "this CPU architecture has no time-stamp counter");
        return false;
    }
    char line[8192] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        fclose(f);
    }
    line[strcspn(line, "\n")] = 0;
    if (strcmp(line, "tsc") != 0) {
        snprintf(why, len, "the kernel's clocksource is %.64s, not tsc",
                 line[0] ? line : "unreadable");
        return false;
    }
    bool found = false;
    f = fopen("/proc/cpuinfo", "r");
    while (f && !found && fgets(line, sizeof line, f))
        found = strncmp(line, "flags", 5) == 0;
    if (f) fclose(f);
    const char *lacks = !found                            ? "a flags line"
                        : !has_flag(line, "constant_tsc") ? "constant_tsc"
                        : !has_flag(line, "nonstop_tsc")  ? "nonstop_tsc"
                                                          : NULL;
    if (lacks) snprintf(why, len, "/proc/cpuinfo lacks %s", lacks);
    return !lacks;
}

/* The closest pair of CALIBRATE_TRIES (an interruption only widens a pair); its width in *span. */
static void closest_pair(uint64_t *tsc, double *t, uint64_t *span)
{
    *span = UINT64_MAX;
    for (int i = 0; i < CALIBRATE_TRIES; i++) {
        uint64_t a = ticks();
        double m = monotonic();
        uint64_t b = ticks();
        if (b - a < *span) {
            *span = b - a;
            *tsc = a + (b - a) / 2;
            *t = m;
        }
    }
}

/* The rate from two pairs CALIBRATE_S apart; the limits in ticks from it. */
static void calibrate(void)
{
    uint64_t a = 0, b = 0, span_a, span_b;
    double ta = 0, tb = 0;
    closest_pair(&a, &ta, &span_a);
    struct timespec pause = {0, (long)(CALIBRATE_S * 1e9)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
    closest_pair(&b, &tb, &span_b);
    uint64_t limit = 4 * (span_a < span_b ? span_a : span_b) + 64;
    double s = b > a && tb > ta ? (tb - ta) / (double)(b - a) : 0;
    if (!(s > 0)) tide_fatal("the TSC did not advance over %g s of CLOCK_MONOTONIC", tb - ta);
    tsc0 = a;
    t0 = ta;
    atomic_store_explicit(&tick_s, s, memory_order_relaxed);
    anchor_ticks = (uint64_t)(ANCHOR_S / s);
    pair_ticks = (uint64_t)(PAIR_MAX_S / s);
    if (pair_ticks < limit) pair_ticks = limit;
}

int tide_clock_setup(int mode, char *err, size_t len)
{
    atomic_store(&use_tsc, false);
    if (mode == TIDE_CLOCK_MONOTONIC) return TIDE_OK;
    char why[160];
    if (!tsc_trusted(why, sizeof why)) {
        if (mode == TIDE_CLOCK_AUTO) return TIDE_OK;
        snprintf(err, len, "TIDE_CLOCK=tsc: %s (TIDE_CLOCK=auto reads CLOCK_MONOTONIC there)", why);
        return TIDE_ERR_CONFIG;
    }
    calibrate();
    memset(&here, 0, sizeof here);
    atomic_store_explicit(&use_tsc, true, memory_order_release);
    return TIDE_OK;
}

const char *tide_clock_name(void)
{
    return atomic_load(&use_tsc) ? "tsc" : "monotonic";
}
