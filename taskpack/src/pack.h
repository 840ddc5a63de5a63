/* Pure bin-packing cores of Task Packing: items are ranks with integer sizes (discretized
 * iteration times), bins are CPUs of integer capacity. No MPI, no globals: unit-tested alone. */
#ifndef TASKPACK_PACK_H
#define TASKPACK_PACK_H

#include <stdint.h>

/* Largest item count tp_pack_exact accepts: its table holds 2^n states of 16 bytes. */
#define TP_EXACT_LIMIT 20

enum tp_algo { TP_ALGO_EXACT, TP_ALGO_FFD, TP_ALGO_SUBSET_DP };

/* Every packer writes bin[i] in [0, k) for each item i and returns k, the number of bins used;
 * each bin's total is <= cap. They return -1 when n < 0, an item is <= 0 or > cap (it fits no
 * bin), or memory runs out; -2 from tp_pack_exact when n > TP_EXACT_LIMIT. */

/* Optimal number of bins, by dynamic programming over subsets (O(2^n n)). */
int tp_pack_exact(const int64_t *w, int n, int64_t cap, int *bin);

/* First-fit decreasing: at most 11/9 OPT + 6/9 bins (Dosa 2007), O(n^2). */
int tp_pack_ffd(const int64_t *w, int n, int64_t cap, int *bin);

/* Repeated subset-sum solved by a pseudo-polynomial DP on a grid of `grid` units per bin (sizes
 * rounded up, so the result stays feasible): each bin takes the fullest subset of what is left. */
int tp_pack_subset_dp(const int64_t *w, int n, int64_t cap, int grid, int *bin);

/* The paper's reference: items taken in groups of at most `split`; inside a group, repeatedly
 * the fullest subset found by exhaustive recursive search becomes a bin. Exponential. */
int tp_pack_paper(const int64_t *w, int n, int64_t cap, int split, int *bin);

/* What the library uses: exact when n <= exact_max, else the better of FFD and subset DP.
 * *used (may be NULL) says which result was kept. */
int tp_pack(const int64_t *w, int n, int64_t cap, int exact_max, int *bin, enum tp_algo *used);

/* ceil(sum w / cap): no packing uses fewer bins. */
int tp_pack_lower_bound(const int64_t *w, int n, int64_t cap);

const char *tp_algo_name(enum tp_algo algo);

#endif
