/* Bin-packing algorithms for Task Packing (see pack.h). */
#include "pack.h"

#include <stdlib.h>
#include <string.h>

static int check_items(const int64_t *w, int n, int64_t cap)
{
    if (n < 0 || cap <= 0) return -1;
    for (int i = 0; i < n; i++)
        if (w[i] <= 0 || w[i] > cap) return -1;
    return 0;
}

int tp_pack_lower_bound(const int64_t *w, int n, int64_t cap)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    return (int)((sum + cap - 1) / cap);
}

/* Place items in `order` one after the other, opening a new bin when the next does not fit:
 * the exact DP's state transitions, replayed to turn an order into bins. */
static int fill_in_order(const int64_t *w, const int *order, int n, int64_t cap, int *bin)
{
    int bins = 0;
    int64_t fill = cap;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        if (fill + w[i] > cap) {
            bins++;
            fill = 0;
        }
        fill += w[i];
        bin[i] = bins - 1;
    }
    return bins;
}

struct dp_state {
    int64_t fill; /* fill of the open bin */
    int32_t bins; /* bins opened so far, the open one included */
    int32_t last; /* item added last, to walk back the order */
};

int tp_pack_exact(const int64_t *w, int n, int64_t cap, int *bin)
{
    if (n > TP_EXACT_LIMIT) return -2;
    if (check_items(w, n, cap)) return -1;
    if (n == 0) return 0;
    size_t states = (size_t)1 << n;
    struct dp_state *dp = malloc(states * sizeof *dp);
    int *order = malloc((size_t)n * sizeof *order);
    if (!dp || !order) {
        free(dp);
        free(order);
        return -1;
    }
    /* Lexicographically least (bins, fill) over all orders of each subset: any packing can be
     * written bin after bin, so the least state of the full set uses the fewest bins. */
    dp[0] = (struct dp_state){.fill = cap, .bins = 0, .last = -1};
    for (size_t m = 1; m < states; m++)
        dp[m] = (struct dp_state){.fill = cap + 1, .bins = INT32_MAX, .last = -1};
    for (size_t m = 0; m < states; m++) {
        for (int i = 0; i < n; i++) {
            size_t bit = (size_t)1 << i;
            if (m & bit) continue;
            struct dp_state s = dp[m];
            if (s.fill + w[i] <= cap) {
                s.fill += w[i];
            } else {
                s.bins++;
                s.fill = w[i];
            }
            struct dp_state *t = &dp[m | bit];
            if (s.bins < t->bins || (s.bins == t->bins && s.fill < t->fill)) {
                t->bins = s.bins;
                t->fill = s.fill;
                t->last = i;
            }
        }
    }
    size_t m = states - 1;
    for (int k = n - 1; k >= 0; k--) {
        order[k] = dp[m].last;
        m &= ~((size_t)1 << order[k]);
    }
    int bins = fill_in_order(w, order, n, cap, bin);
    free(dp);
    free(order);
    return bins;
}

/* Indices sorted by decreasing size, ties by index so results are reproducible. */
static int *decreasing_order(const int64_t *w, int n)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order) return NULL;
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && w[order[j - 1]] < w[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return order;
}

int tp_pack_ffd(const int64_t *w, int n, int64_t cap, int *bin)
{
    if (check_items(w, n, cap)) return -1;
    int *order = decreasing_order(w, n);
    int64_t *fill = malloc((size_t)(n > 0 ? n : 1) * sizeof *fill);
    if (!order || !fill) {
        free(order);
        free(fill);
        return -1;
    }
    int bins = 0;
    for (int k = 0; k < n; k++) {
        int i = order[k], b = 0;
        while (b < bins && fill[b] + w[i] > cap)
            b++;
        if (b == bins) fill[bins++] = 0;
        fill[b] += w[i];
        bin[i] = b;
    }
    free(order);
    free(fill);
    return bins;
}

int tp_pack_subset_dp(const int64_t *w, int n, int64_t cap, int grid, int *bin)
{
    if (check_items(w, n, cap) || grid <= 0) return -1;
    int *g = malloc((size_t)(n > 0 ? n : 1) * sizeof *g);
    /* reach[j][s]: sum s is reachable with items among the first j left; took[] marks choices. */
    unsigned char *took = malloc((size_t)(n > 0 ? n : 1) * (size_t)(grid + 1));
    unsigned char *reach = malloc((size_t)(grid + 1));
    int *left = malloc((size_t)(n > 0 ? n : 1) * sizeof *left);
    if (!g || !took || !reach || !left) {
        free(g);
        free(took);
        free(reach);
        free(left);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        /* Round up: a bin full on the grid is never over capacity in real sizes. */
        __int128 scaled = ((__int128)w[i] * grid + cap - 1) / cap;
        g[i] = (int)scaled;
        bin[i] = -1;
    }
    int nleft = n, bins = 0;
    while (nleft > 0) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (bin[i] < 0) left[k++] = i;
        memset(reach, 0, (size_t)grid + 1);
        reach[0] = 1;
        for (int j = 0; j < k; j++) {
            unsigned char *tk = took + (size_t)j * (size_t)(grid + 1);
            memset(tk, 0, (size_t)grid + 1);
            for (int s = grid; s >= g[left[j]]; s--) {
                if (!reach[s] && reach[s - g[left[j]]]) {
                    reach[s] = 1;
                    tk[s] = 1;
                }
            }
        }
        int s = grid;
        while (!reach[s])
            s--;
        /* Walk back: the item that first reached s belongs to the chosen subset. */
        for (int j = k - 1; j >= 0 && s > 0; j--) {
            if (took[(size_t)j * (size_t)(grid + 1) + (size_t)s]) {
                bin[left[j]] = bins;
                s -= g[left[j]];
                nleft--;
            }
        }
        bins++;
    }
    free(g);
    free(took);
    free(reach);
    free(left);
    return bins;
}

struct paper_search {
    const int64_t *w;
    const int *items; /* candidates, largest first */
    int n;
    int64_t cap;
    int64_t best;
    unsigned char *cur, *keep;
    const int64_t *suffix; /* suffix[j]: sum of candidates j.. */
};

static void paper_recurse(struct paper_search *ps, int j, int64_t sum)
{
    if (sum > ps->best) {
        ps->best = sum;
        memcpy(ps->keep, ps->cur, (size_t)ps->n);
    }
    if (j == ps->n || ps->best == ps->cap || sum + ps->suffix[j] <= ps->best) return;
    int64_t wi = ps->w[ps->items[j]];
    if (sum + wi <= ps->cap) {
        ps->cur[j] = 1;
        paper_recurse(ps, j + 1, sum + wi);
        ps->cur[j] = 0;
    }
    paper_recurse(ps, j + 1, sum);
}

int tp_pack_paper(const int64_t *w, int n, int64_t cap, int split, int *bin)
{
    if (check_items(w, n, cap) || split <= 0) return -1;
    int *items = malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
    int64_t *suffix = malloc((size_t)(n + 1) * sizeof *suffix);
    unsigned char *cur = malloc((size_t)(n > 0 ? n : 1));
    unsigned char *keep = malloc((size_t)(n > 0 ? n : 1));
    if (!items || !suffix || !cur || !keep) {
        free(items);
        free(suffix);
        free(cur);
        free(keep);
        return -1;
    }
    for (int i = 0; i < n; i++)
        bin[i] = -1;
    int bins = 0;
    for (int lo = 0; lo < n; lo += split) {
        int hi = lo + split < n ? lo + split : n;
        for (;;) {
            int k = 0;
            for (int i = lo; i < hi; i++) {
                if (bin[i] >= 0) continue;
                int j = k++;
                while (j > 0 && w[items[j - 1]] < w[i]) {
                    items[j] = items[j - 1];
                    j--;
                }
                items[j] = i;
            }
            if (k == 0) break;
            suffix[k] = 0;
            for (int j = k - 1; j >= 0; j--)
                suffix[j] = suffix[j + 1] + w[items[j]];
            memset(cur, 0, (size_t)k);
            memset(keep, 0, (size_t)k);
            struct paper_search ps = {w, items, k, cap, 0, cur, keep, suffix};
            paper_recurse(&ps, 0, 0);
            for (int j = 0; j < k; j++)
                if (keep[j]) bin[items[j]] = bins;
            bins++;
        }
    }
    free(items);
    free(suffix);
    free(cur);
    free(keep);
    return bins;
}

/* Grid of the subset DP used for large nodes: 1/4096 of a bin is below timer noise. */
#define TP_SUBSET_GRID 4096

int tp_pack(const int64_t *w, int n, int64_t cap, int exact_max, int *bin, enum tp_algo *used)
{
    if (n <= exact_max && n <= TP_EXACT_LIMIT) {
        if (used) *used = TP_ALGO_EXACT;
        return tp_pack_exact(w, n, cap, bin);
    }
    int bins = tp_pack_ffd(w, n, cap, bin);
    if (used) *used = TP_ALGO_FFD;
    if (bins <= tp_pack_lower_bound(w, n, cap)) return bins;
    int *alt = malloc((size_t)(n > 0 ? n : 1) * sizeof *alt);
    if (!alt) return bins;
    int alt_bins = tp_pack_subset_dp(w, n, cap, TP_SUBSET_GRID, alt);
    if (alt_bins > 0 && alt_bins < bins) {
        memcpy(bin, alt, (size_t)n * sizeof *bin);
        bins = alt_bins;
        if (used) *used = TP_ALGO_SUBSET_DP;
    }
    free(alt);
    return bins;
}

const char *tp_algo_name(enum tp_algo algo)
{
    switch (algo) {
    case TP_ALGO_EXACT:
        return "exact";
    case TP_ALGO_FFD:
        return "ffd";
    case TP_ALGO_SUBSET_DP:
        return "subset_dp";
    }
    return "unknown";
}
