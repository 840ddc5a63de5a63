/*
 * tide_core_backoff.h - the comm thread's poll back-off, written once for libtide and tide-sim.
 *
 * An idle comm loop polls TIDE_POLL_SPIN more turns at once, then sleeps 1 us, 2 us, 4 us ...
 * up to a cap (TIDE_POLL_SLEEP_MAX_US) between turns; a turn that does work starts it over.
 * libtide's comm thread (runtime/engine/commthread.c) steps it turn by turn (tide_backoff_idle);
 * tide-sim, which does not run the idle turns, asks when the first one at or after a time falls
 * (tide_backoff_next_poll), and that answer is computed by stepping the same state.
 *
 * Pure code: no clock, no threads, no globals.
 */
#ifndef TIDE_CORE_BACKOFF_H
#define TIDE_CORE_BACKOFF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tide_backoff {
    int spin;       /* empty turns polled at once before the first sleep */
    long sleep_max; /* the longest sleep, us (>= 1) */
    int empty;      /* empty turns since the last busy one */
    long sleep;     /* the next sleep, us */
} tide_backoff;

/* A loop that just did work; spin and sleep_max_us as TIDE_POLL_SPIN and TIDE_POLL_SLEEP_MAX_US
 * (sleep_max_us >= 1). */
void tide_backoff_init(tide_backoff *b, int spin, long sleep_max_us);

/* A turn did work: the next empty turns spin again. */
static inline void tide_backoff_busy(tide_backoff *b)
{
    b->empty = 0;
    b->sleep = 1;
}

/* A turn found nothing: how long to sleep before the next one, in us (0: poll again at once).
 * Spin turns first, then sleeps doubling up to the cap. */
static inline long tide_backoff_idle(tide_backoff *b)
{
    if (b->empty < b->spin) {
        b->empty++;
        return 0;
    }
    long us = b->sleep;
    b->sleep = 2 * us < b->sleep_max ? 2 * us : b->sleep_max;
    return us;
}

/* The cap changed (sleep_max_us >= 1): a sleep already doubled beyond it is cut to it, so a
 * loop whose cap falls polls at the new pace from its next sleep on. */
static inline void tide_backoff_cap(tide_backoff *b, long sleep_max_us)
{
    b->sleep_max = sleep_max_us;
    if (b->sleep > sleep_max_us) b->sleep = sleep_max_us;
}

/* The time of the first turn at or after t of a loop that last did work at time a and has found
 * nothing since, when an empty turn takes turn_s seconds and a sleep none (times in seconds;
 * t <= a: a). The spin turns are counted in closed form, the doubling sleeps stepped with
 * tide_backoff_idle, the capped ones in closed form again. */
double tide_backoff_next_poll(const tide_backoff *b, double turn_s, double a, double t);

#ifdef __cplusplus
}
#endif

#endif
