/* The noise decision is a pure function of (seed, iteration, rank, task): the same in every call,
 * hitting the requested fractions over 100k draws (within 5 standard deviations), independent
 * between neighbouring tasks and between jitter and disturbance, and different for another seed.
 * The parser takes P:F with P in [0, 1] and F in [1, 1000] and nothing else. */
#include "../noise.h"

#include <math.h>
#include <stdio.h>

static int failures;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "FAIL %s\n", what);
        failures++;
    }
}

enum { ITERS = 100, RANKS = 10, TASKS = 100, DRAWS = ITERS * RANKS * TASKS };

/* |hits / n - p| within 5 standard deviations of a binomial(n, p) fraction. */
static void expect_fraction(long hits, long n, double p, const char *what)
{
    double frac = (double)hits / (double)n, tol = 5.0 * sqrt(p * (1.0 - p) / (double)n);
    if (!(fabs(frac - p) <= tol)) {
        fprintf(stderr, "FAIL %s: fraction %.5f, expected %.5f +- %.5f\n", what, frac, p, tol);
        failures++;
    }
}

static void test_parse(void)
{
    noise_event e = {-1, -1};
    expect(noise_event_parse("0.05:10", &e) == 0 && e.p == 0.05 && e.f == 10, "parse 0.05:10");
    expect(noise_event_parse("0:1", &e) == 0 && e.p == 0 && e.f == 1, "parse 0:1");
    expect(noise_event_parse("1:1000", &e) == 0 && e.p == 1 && e.f == 1000, "parse 1:1000");
    expect(noise_event_parse("1e-1:2.5", &e) == 0 && e.p == 0.1 && e.f == 2.5, "parse 1e-1:2.5");
    const char *bad[] = {"",        "0.5",      "0.5:",    ":2",      "1.5:2",   "-0.1:2",
                         "0.5:0.9", "0.5:1001", "nan:2",   "0.5:inf", "0.5:2:3", "0.5:2x",
                         "a:b",     "0.5;2",    "0.5:nan", "1:1e309"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        e = (noise_event){7, 7};
        if (noise_event_parse(bad[i], &e) != -1 || e.p != 7 || e.f != 7) {
            fprintf(stderr, "FAIL parse accepted '%s' or changed its output\n", bad[i]);
            failures++;
        }
    }
    expect(noise_event_parse(NULL, &e) == -1, "parse NULL");
    noise_spec d = noise_spec_default();
    expect(d.jitter.p == 0 && d.disturb.p == 0 && d.seed == 1, "defaults: off, seed 1");
}

static long count_jittered(const noise_spec *s)
{
    long hits = 0;
    for (int it = 0; it < ITERS; it++)
        for (int r = 0; r < RANKS; r++)
            for (int j = 0; j < TASKS; j++)
                hits += noise_jittered(s, it, r, j);
    return hits;
}

static void test_deterministic(void)
{
    noise_spec s = noise_spec_default();
    s.jitter = (noise_event){0.3, 2};
    s.disturb = (noise_event){0.3, 3};
    int same = 1;
    for (int it = 0; it < 50; it++)
        for (int r = 0; r < 8; r++)
            for (int j = 0; j < 50; j++) {
                double f = noise_factor(&s, it, r, j);
                noise_spec copy = s;
                same &= f == noise_factor(&copy, it, r, j) && f == noise_factor(&s, it, r, j);
                same &= f == (noise_jittered(&s, it, r, j) ? 2.0 : 1.0) *
                                 (noise_disturbed(&s, it, r) ? 3.0 : 1.0);
            }
    expect(same, "noise_factor is a pure function of its arguments, jitter x disturbance");
    /* Pinned: a change here changes the noise of every recorded experiment. */
    s.jitter.p = 0.05;
    expect(count_jittered(&s) == 5062, "seed 1, p 0.05: 5062 of the 100k tasks jittered");
}

static void test_fractions(void)
{
    const double ps[] = {0.01, 0.05, 0.3, 0.9};
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
        noise_spec s = noise_spec_default();
        s.jitter.p = s.disturb.p = ps[k];
        expect_fraction(count_jittered(&s), DRAWS, ps[k], "jitter");
        long hits = 0;
        for (int it = 0; it < 1000; it++) /* 100k (iteration, rank) pairs */
            for (int r = 0; r < 100; r++)
                hits += noise_disturbed(&s, it, r);
        expect_fraction(hits, DRAWS, ps[k], "disturbance");
    }
    noise_spec s = noise_spec_default();
    s.jitter.p = s.disturb.p = 0;
    expect(count_jittered(&s) == 0, "p 0 never jitters");
    s.jitter.p = s.disturb.p = 1;
    expect(count_jittered(&s) == DRAWS, "p 1 always jitters");
    int all = 1;
    for (int it = 0; it < 100; it++)
        all &= noise_disturbed(&s, it, it % 7);
    expect(all, "p 1 always disturbs");
    /* the uniform draw in ten equal bins */
    long bins[10] = {0};
    for (uint64_t i = 0; i < DRAWS; i++)
        bins[(int)(noise_uniform(1, 1, i / 1000, i / 10 % 100, i % 10) * 10)]++;
    for (int b = 0; b < 10; b++)
        expect_fraction(bins[b], DRAWS, 0.1, "uniform bin");
}

static void test_independent(void)
{
    noise_spec s = noise_spec_default();
    s.jitter.p = s.disturb.p = 0.3;
    long pair = 0, swapped = 0, both = 0;
    for (int it = 0; it < ITERS; it++)
        for (int r = 0; r < RANKS; r++)
            for (int j = 0; j < TASKS; j++) {
                int h = noise_jittered(&s, it, r, j);
                pair += h && noise_jittered(&s, it, r, j + 1);
                /* (iteration, rank) and (rank, iteration) are different tasks */
                swapped += h && noise_jittered(&s, r, it, j);
            }
    for (int it = 0; it < 1000; it++) /* a rank's disturbance and its task 0's jitter */
        for (int r = 0; r < 100; r++)
            both += noise_jittered(&s, it, r, 0) && noise_disturbed(&s, it, r);
    expect_fraction(pair, DRAWS, 0.09, "task j and j+1 both jittered");
    expect_fraction(swapped, DRAWS, 0.09, "iteration and rank swapped");
    expect_fraction(both, DRAWS, 0.09, "jittered and disturbed");
}

static void test_seeds_differ(void)
{
    noise_spec a = noise_spec_default(), b = a;
    a.jitter.p = b.jitter.p = 0.05;
    b.seed = 2;
    long differ = 0;
    for (int it = 0; it < ITERS; it++)
        for (int r = 0; r < RANKS; r++)
            for (int j = 0; j < TASKS; j++)
                differ += noise_jittered(&a, it, r, j) != noise_jittered(&b, it, r, j);
    /* independent seeds: a task differs with probability 2 p (1 - p) */
    expect_fraction(differ, DRAWS, 2 * 0.05 * 0.95, "seeds 1 and 2 jitter different tasks");
    long ddiffer = 0;
    a.disturb.p = b.disturb.p = 0.5;
    for (int it = 0; it < 1000; it++)
        for (int r = 0; r < 100; r++)
            ddiffer += noise_disturbed(&a, it, r) != noise_disturbed(&b, it, r);
    expect_fraction(ddiffer, DRAWS, 0.5, "seeds 1 and 2 disturb different ranks");
}

int main(void)
{
    test_parse();
    test_deterministic();
    test_fractions();
    test_independent();
    test_seeds_differ();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
