/*
 * global_order.c - deterministic object orders and the objects grouped by rank.
 */
#include "global_internal.h"

#include <stdlib.h>

typedef struct keyed {
    double w;
    int64_t i;
} keyed;

static int heavy_first(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->w != b->w) return a->w < b->w ? 1 : -1;
    return (a->i > b->i) - (a->i < b->i);
}

static int light_first(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->w != b->w) return a->w < b->w ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* qsort is not stable; sorting (weight, index) pairs makes every order total and portable. */
static int sort_indices(int64_t n, int64_t *idx, const double *w, bool heavy)
{
    if (n <= 0) return TIDE_PLAN_OK;
    keyed *k = malloc((size_t)n * sizeof *k);
    if (k == NULL) return TIDE_PLAN_ENOMEM;
    for (int64_t j = 0; j < n; j++)
        k[j] = (keyed){w[idx[j]], idx[j]};
    qsort(k, (size_t)n, sizeof *k, heavy ? heavy_first : light_first);
    for (int64_t j = 0; j < n; j++)
        idx[j] = k[j].i;
    free(k);
    return TIDE_PLAN_OK;
}

int64_t *lb_sort_heavy_first(int64_t n, const double *load)
{
    int64_t *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    if (idx == NULL) return NULL;
    for (int64_t o = 0; o < n; o++)
        idx[o] = o;
    if (sort_indices(n, idx, load, true) != TIDE_PLAN_OK) {
        free(idx);
        return NULL;
    }
    return idx;
}

void lb_sort_by_load_asc(int64_t n, int64_t *idx, const double *w)
{
    /* Falls back to insertion sort when the scratch allocation fails, so it cannot fail. */
    if (sort_indices(n, idx, w, false) == TIDE_PLAN_OK) return;
    for (int64_t j = 1; j < n; j++) {
        int64_t x = idx[j], i = j;
        while (i > 0 && (w[idx[i - 1]] > w[x] || (w[idx[i - 1]] == w[x] && idx[i - 1] > x))) {
            idx[i] = idx[i - 1];
            i--;
        }
        idx[i] = x;
    }
}

int lb_by_rank_make(const tide_global_input *in, const int32_t *owner, lb_by_rank *g)
{
    g->start = calloc((size_t)in->np + 1, sizeof *g->start);
    int64_t *order = lb_sort_heavy_first(in->nobj, in->load);
    g->obj = malloc((size_t)(in->nobj > 0 ? in->nobj : 1) * sizeof *g->obj);
    if (g->start == NULL || order == NULL || g->obj == NULL) {
        free(order);
        lb_by_rank_free(g);
        return TIDE_PLAN_ENOMEM;
    }
    for (int64_t o = 0; o < in->nobj; o++)
        g->start[owner[o] + 1]++;
    for (int32_t r = 0; r < in->np; r++)
        g->start[r + 1] += g->start[r];
    int64_t *fill = malloc((size_t)in->np * sizeof *fill);
    if (fill == NULL) {
        free(order);
        lb_by_rank_free(g);
        return TIDE_PLAN_ENOMEM;
    }
    for (int32_t r = 0; r < in->np; r++)
        fill[r] = g->start[r];
    for (int64_t j = 0; j < in->nobj; j++)
        g->obj[fill[owner[order[j]]]++] = order[j];
    free(fill);
    free(order);
    return TIDE_PLAN_OK;
}

void lb_by_rank_free(lb_by_rank *g)
{
    free(g->start);
    free(g->obj);
    g->start = g->obj = NULL;
}

int32_t lb_donors(int32_t np, const double *time, double avg, bool at_avg, int32_t *out)
{
    int64_t *idx = malloc((size_t)np * sizeof *idx);
    if (idx == NULL) return -1;
    int64_t n = 0;
    for (int32_t r = 0; r < np; r++)
        if (time[r] > avg || (at_avg && time[r] == avg)) idx[n++] = r;
    int rc = sort_indices(n, idx, time, true);
    for (int64_t j = 0; j < n; j++)
        out[j] = (int32_t)idx[j];
    free(idx);
    return rc == TIDE_PLAN_OK ? (int32_t)n : -1;
}
