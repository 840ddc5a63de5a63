/*
 * global_heap.c - indexed binary heap of ranks: O(log np) push, pop and key change, which the
 * greedy and refine walks need after every object they place.
 */
#include "global_internal.h"

#include <stdlib.h>

int lb_heap_init(lb_heap *h, int32_t np, bool max)
{
    h->n = 0;
    h->max = max;
    h->key = malloc((size_t)np * sizeof *h->key);
    h->at = malloc((size_t)np * sizeof *h->at);
    h->item = malloc((size_t)np * sizeof *h->item);
    if (h->key == NULL || h->at == NULL || h->item == NULL) {
        lb_heap_free(h);
        return TIDE_PLAN_ENOMEM;
    }
    for (int32_t r = 0; r < np; r++)
        h->at[r] = -1;
    return TIDE_PLAN_OK;
}

void lb_heap_free(lb_heap *h)
{
    free(h->key);
    free(h->at);
    free(h->item);
    h->key = NULL;
    h->at = h->item = NULL;
}

/* True when rank a belongs above rank b. Ties go to the lower rank so the order is total. */
static bool before(const lb_heap *h, int32_t a, int32_t b)
{
    double ka = h->key[a], kb = h->key[b];
    if (ka != kb) return h->max ? ka > kb : ka < kb;
    return a < b;
}

static void place(lb_heap *h, int32_t pos, int32_t r)
{
    h->item[pos] = r;
    h->at[r] = pos;
}

static void sift_up(lb_heap *h, int32_t pos)
{
    int32_t r = h->item[pos];
    while (pos > 0) {
        int32_t parent = (pos - 1) / 2;
        if (!before(h, r, h->item[parent])) break;
        place(h, pos, h->item[parent]);
        pos = parent;
    }
    place(h, pos, r);
}

static void sift_down(lb_heap *h, int32_t pos)
{
    int32_t r = h->item[pos];
    for (;;) {
        int32_t child = 2 * pos + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && before(h, h->item[child + 1], h->item[child])) child++;
        if (!before(h, h->item[child], r)) break;
        place(h, pos, h->item[child]);
        pos = child;
    }
    place(h, pos, r);
}

void lb_heap_push(lb_heap *h, int32_t r, double key)
{
    h->key[r] = key;
    place(h, h->n++, r);
    sift_up(h, h->n - 1);
}

int32_t lb_heap_top(const lb_heap *h)
{
    return h->n > 0 ? h->item[0] : -1;
}

void lb_heap_remove(lb_heap *h, int32_t r)
{
    int32_t pos = h->at[r];
    h->at[r] = -1;
    h->n--;
    if (pos == h->n) return;
    int32_t moved = h->item[h->n];
    place(h, pos, moved);
    sift_up(h, pos);
    sift_down(h, h->at[moved]);
}

int32_t lb_heap_pop(lb_heap *h)
{
    int32_t r = lb_heap_top(h);
    if (r >= 0) lb_heap_remove(h, r);
    return r;
}

void lb_heap_update(lb_heap *h, int32_t r, double key)
{
    h->key[r] = key;
    sift_up(h, h->at[r]);
    sift_down(h, h->at[r]);
}
