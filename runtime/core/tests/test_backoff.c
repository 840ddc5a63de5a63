/* The poll back-off (tide_core_backoff.h): libtide's turn-by-turn schedule, and the closed form
 * tide-sim asks, which must name exactly the turns that schedule runs. */
#include "check.h"
#include "tide_core_backoff.h"

#include <math.h>

/* TIDE_POLL_SPIN empty turns at once, then 1, 2, 4 ... us up to the cap, and a busy turn starts
 * it over. */
static void schedule_spins_then_doubles_to_the_cap(void)
{
    tide_backoff b;
    tide_backoff_init(&b, 3, 10);
    const long want[] = {0, 0, 0, 1, 2, 4, 8, 10, 10, 10};
    for (int i = 0; i < 10; i++)
        CHECK_EQ_I64(tide_backoff_idle(&b), want[i]);
    tide_backoff_busy(&b);
    for (int i = 0; i < 10; i++)
        CHECK_EQ_I64(tide_backoff_idle(&b), want[i]);
    /* No spin, a cap of 1 us: every empty turn sleeps 1 us. */
    tide_backoff_init(&b, 0, 1);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(tide_backoff_idle(&b), 1);
    /* A cap that is not a power of two is reached, not passed. */
    tide_backoff_init(&b, 0, 250);
    long last = 0;
    for (int i = 0; i < 20; i++)
        last = tide_backoff_idle(&b);
    CHECK_EQ_I64(last, 250);
}

/* A cap that rises lets the sleeps go on doubling; one that falls cuts the next sleep to it at
 * once (libtide's comm thread lowers it when a protocol phase follows phases it had no part in). */
static void cap_changes_take_effect_at_the_next_sleep(void)
{
    tide_backoff b;
    tide_backoff_init(&b, 0, 4);
    const long low[] = {1, 2, 4, 4};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(tide_backoff_idle(&b), low[i]);
    tide_backoff_cap(&b, 100000);
    const long high[] = {4, 8, 16, 32};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(tide_backoff_idle(&b), high[i]);
    tide_backoff_cap(&b, 10);
    CHECK_EQ_I64(tide_backoff_idle(&b), 10);
    CHECK_EQ_I64(tide_backoff_idle(&b), 10);
    /* A busy turn starts over from 1 us whatever the cap. */
    tide_backoff_cap(&b, 100000);
    tide_backoff_busy(&b);
    CHECK_EQ_I64(tide_backoff_idle(&b), 1);
}

/* The turns of an idle loop that was last busy at a: stepped one by one with tide_backoff_idle
 * (turn_s per empty turn, sleeps between), up to n of them. */
static int turns(int spin, long cap, double turn_s, double a, double *at, int n)
{
    tide_backoff b;
    tide_backoff_init(&b, spin, cap);
    double t = a;
    for (int i = 0; i < n; i++) {
        long us = tide_backoff_idle(&b);
        t += us ? 1e-6 * (double)us : turn_s;
        at[i] = t;
    }
    return n;
}

/* tide_backoff_next_poll(t) is the first turn at or after t: for t a quarter of a gap before a
 * turn, and a quarter of a gap after the one before (the turns are sums here, products there:
 * equal to rounding, which sleeps_are_exact_microseconds pins where it matters), over spins and
 * caps of every kind. */
static void next_poll_is_the_first_turn_at_or_after(void)
{
    const int spins[] = {0, 1, 5, 200};
    const long caps[] = {1, 3, 64, 250, 1000};
    const double turn_s = 0.5e-6, a = 2.0;
    double at[600];
    for (int si = 0; si < 4; si++)
        for (int ci = 0; ci < 5; ci++) {
            tide_backoff b;
            tide_backoff_init(&b, spins[si], caps[ci]);
            int n = turns(spins[si], caps[ci], turn_s, a, at, 600);
            double tol = 1e-12;
            CHECK(tide_backoff_next_poll(&b, turn_s, a, a - 1) == a);
            CHECK(tide_backoff_next_poll(&b, turn_s, a, a) == a);
            for (int i = 1; i < n; i++) {
                double gap = at[i] - at[i - 1];
                double x[] = {at[i] - 0.25 * gap, at[i - 1] + 0.25 * gap};
                for (int k = 0; k < 2; k++) {
                    double got = tide_backoff_next_poll(&b, turn_s, a, x[k]);
                    if (fabs(got - at[i]) > tol) {
                        fprintf(stderr, "spin %d cap %ld: turn %d at %.9f, next_poll(%.9f) %.9f\n",
                                spins[si], caps[ci], i, at[i], x[k], got);
                        check_failures++;
                    }
                }
            }
        }
}

/* The sleeps are exact multiples of 1e-6 s (a doubled 1e-6, as tide-sim computed them): with no
 * spin the third turn is at a + 1e-6 + 2e-6 + 4e-6, bit for bit. */
static void sleeps_are_exact_microseconds(void)
{
    tide_backoff b;
    tide_backoff_init(&b, 0, 250);
    double d = 1e-6, s = 0;
    for (int i = 0; i < 12; i++) {
        CHECK(tide_backoff_next_poll(&b, 0.5e-6, 0, s + d / 2) == s + d);
        s += d;
        d = fmin(2 * d, 1e-6 * 250); /* the cap as tide-sim scaled it */
    }
}

int main(void)
{
    schedule_spins_then_doubles_to_the_cap();
    cap_changes_take_effect_at_the_next_sleep();
    next_poll_is_the_first_turn_at_or_after();
    sleeps_are_exact_microseconds();
    return CHECK_REPORT("test_backoff");
}
