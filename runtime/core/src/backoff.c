/* The poll back-off (tide_core_backoff.h). */
#include "tide_core_backoff.h"

#include <math.h>

void tide_backoff_init(tide_backoff *b, int spin, long sleep_max_us)
{
    b->spin = spin;
    b->sleep_max = sleep_max_us;
    tide_backoff_busy(b);
}

double tide_backoff_next_poll(const tide_backoff *b, double turn_s, double a, double t)
{
    if (t <= a) return a;
    double spin_s = b->spin * turn_s;
    if (t <= a + spin_s) return a + ceil((t - a) / turn_s) * turn_s;
    /* The sleeps after the spin, from a loop state that has just spun: the same steps as the
     * comm thread's. Microseconds are scaled to seconds by one multiplication each, so a sleep
     * of 2^k us is exactly 2^k times 1e-6 s, as a doubled 1e-6 would be. */
    tide_backoff s = *b;
    s.empty = s.spin;
    s.sleep = 1;
    double at = a + spin_s;
    for (long us = tide_backoff_idle(&s); us < s.sleep_max; us = tide_backoff_idle(&s)) {
        double d = 1e-6 * (double)us;
        if (t <= at + d) return at + d;
        at += d;
    }
    double cap = 1e-6 * (double)s.sleep_max;
    return at + ceil((t - at) / cap) * cap;
}
