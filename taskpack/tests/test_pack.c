/* Packing algorithms: feasibility, every item placed once, optimality against brute force,
 * and never worse than the paper's repeated subset-sum. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pack.h"

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* bins used if valid: each item in [0, k), no bin over cap; -1 otherwise. */
static int validate(const int64_t *w, int n, int64_t cap, const int *bin, int k)
{
    int64_t fill[64] = {0};
    if (k < 0 || k > 64) return -1;
    for (int i = 0; i < n; i++) {
        if (bin[i] < 0 || bin[i] >= k) return -1;
        fill[bin[i]] += w[i];
    }
    for (int b = 0; b < k; b++)
        if (fill[b] > cap || fill[b] == 0) return -1;
    return k;
}

/* Optimal bins by enumerating every set partition (restricted growth strings). */
static int brute_force(const int64_t *w, int n, int64_t cap)
{
    int a[16] = {0}, best = n;
    int64_t fill[16];
    for (;;) {
        int k = 0, ok = 1;
        memset(fill, 0, sizeof fill);
        for (int i = 0; i < n; i++) {
            fill[a[i]] += w[i];
            if (a[i] + 1 > k) k = a[i] + 1;
        }
        for (int b = 0; b < k; b++)
            ok &= fill[b] <= cap;
        if (ok && k < best) best = k;
        int i = n - 1;
        for (; i > 0; i--) {
            int mx = 0;
            for (int j = 0; j < i; j++)
                if (a[j] > mx) mx = a[j];
            if (a[i] <= mx) break;
        }
        if (i <= 0) break;
        a[i]++;
        for (int j = i + 1; j < n; j++)
            a[j] = 0;
    }
    return best;
}

static void random_items(int64_t *w, int n, int64_t cap, int style)
{
    for (int i = 0; i < n; i++) {
        switch (style % 3) {
        case 0: /* uniform over the whole bin */
            w[i] = 1 + (int64_t)(rng() % (unsigned long long)cap);
            break;
        case 1: /* small items: many fit per bin */
            w[i] = 1 + (int64_t)(rng() % (unsigned long long)(cap / 4));
            break;
        default: /* one heavy rank per few, like an imbalanced node */
            w[i] = rng() % 4 == 0 ? cap - (int64_t)(rng() % (unsigned long long)(cap / 10 + 1))
                                  : 1 + (int64_t)(rng() % (unsigned long long)(cap / 3));
        }
    }
}

static void test_bad_input(void)
{
    int64_t w[3] = {5, 11, 3};
    int bin[3];
    CHECK(tp_pack_exact(w, 3, 10, bin) == -1, "item over capacity accepted");
    CHECK(tp_pack_ffd(w, 3, 10, bin) == -1, "item over capacity accepted");
    CHECK(tp_pack_paper(w, 3, 10, 30, bin) == -1, "item over capacity accepted");
    CHECK(tp_pack_subset_dp(w, 3, 10, 64, bin) == -1, "item over capacity accepted");
    int64_t z[2] = {0, 3};
    CHECK(tp_pack_ffd(z, 2, 10, bin) == -1, "zero-size item accepted");
    int64_t big[TP_EXACT_LIMIT + 1];
    int bbin[TP_EXACT_LIMIT + 1];
    for (int i = 0; i <= TP_EXACT_LIMIT; i++)
        big[i] = 1;
    CHECK(tp_pack_exact(big, TP_EXACT_LIMIT + 1, 10, bbin) == -2, "exact accepted too many");
    CHECK(tp_pack_exact(w, 0, 10, bin) == 0, "empty input uses bins");
}

static void test_known_cases(void)
{
    /* A perfect fit: {6,4} {3,3,2,2}. */
    int64_t w[6] = {6, 4, 3, 3, 2, 2};
    int bin[6];
    CHECK(tp_pack_exact(w, 6, 10, bin) == 2, "exact should pack in 2");
    /* Classic FFD counterexample: 2 bins optimal, FFD needs 3. */
    int64_t f[6] = {5, 5, 4, 4, 3, 3};
    int k = tp_pack_ffd(f, 6, 12, bin);
    CHECK(validate(f, 6, 12, bin, k) == 3, "ffd should need 3 bins here, got %d", k);
    CHECK(tp_pack_exact(f, 6, 12, bin) == 2, "exact should find 5+4+3 twice");
    /* One heavy rank and three light ones: the paper's motivating case frees two CPUs. */
    int64_t h[4] = {100, 30, 30, 30};
    CHECK(tp_pack(h, 4, 100, 16, bin, NULL) == 2, "heavy + 3 light should need 2 CPUs");
    /* Balanced: nothing to free. */
    int64_t b[4] = {100, 100, 100, 100};
    CHECK(tp_pack(b, 4, 100, 16, bin, NULL) == 4, "balanced should need 4 CPUs");
}

static void test_exact_vs_brute_force(void)
{
    int64_t w[16];
    int bin[16];
    for (int trial = 0; trial < 600; trial++) {
        int n = 1 + (int)(rng() % 9);
        int64_t cap = 50 + (int64_t)(rng() % 200);
        random_items(w, n, cap, trial);
        int opt = brute_force(w, n, cap);
        int k = tp_pack_exact(w, n, cap, bin);
        CHECK(validate(w, n, cap, bin, k) == k, "exact invalid (trial %d)", trial);
        CHECK(k == opt, "exact %d != brute force %d (trial %d, n %d)", k, opt, trial, n);
        k = tp_pack_ffd(w, n, cap, bin);
        CHECK(validate(w, n, cap, bin, k) == k, "ffd invalid (trial %d)", trial);
        /* FFD's proven bound, in integers: 9 FFD <= 11 OPT + 6. */
        CHECK(9 * k <= 11 * opt + 6, "ffd %d breaks its bound vs opt %d", k, opt);
        CHECK(k >= opt, "ffd %d below the optimum %d", k, opt);
    }
}

static void test_never_worse_than_paper(void)
{
    int64_t w[64];
    int bin[64];
    const int64_t cap = 1 << 20;
    int strictly_better = 0;
    for (int trial = 0; trial < 300; trial++) {
        /* Small nodes take the exact path; 17..40 ranks the heuristics (the paper splits at 30). */
        int n = trial < 200 ? 2 + (int)(rng() % 15) : 17 + (int)(rng() % 24);
        random_items(w, n, cap, trial);
        int paper = tp_pack_paper(w, n, cap, 30, bin);
        CHECK(validate(w, n, cap, bin, paper) == paper, "paper invalid (trial %d)", trial);
        enum tp_algo used;
        int ours = tp_pack(w, n, cap, 16, bin, &used);
        CHECK(validate(w, n, cap, bin, ours) == ours, "tp_pack invalid (trial %d)", trial);
        CHECK(ours <= paper, "tp_pack %d (%s) worse than paper %d (trial %d, n %d)", ours,
              tp_algo_name(used), paper, trial, n);
        CHECK(ours >= tp_pack_lower_bound(w, n, cap), "below the lower bound (trial %d)", trial);
        int dp = tp_pack_subset_dp(w, n, cap, 4096, bin);
        CHECK(validate(w, n, cap, bin, dp) == dp, "subset dp invalid (trial %d)", trial);
        strictly_better += ours < paper;
    }
    printf("tp_pack used fewer CPUs than the paper's method in %d of 300 cases\n", strictly_better);
}

int main(void)
{
    test_bad_input();
    test_known_cases();
    test_exact_vs_brute_force();
    test_never_worse_than_paper();
    return CHECK_DONE("test_pack");
}
