/*
 * global_smartlb.c - SmartLB: a centralised, conservative pass that only fills ranks up to the
 * average.
 *
 * Interpretation of the paper (its pseudo-code compares with opposite signs in its two tests;
 * the text is followed, see docs/global-strategies.md): act only when (max - min) / max exceeds
 * the threshold; then walk the ranks at or above the average, heaviest first, and their objects,
 * heaviest first, and move an object to the currently least loaded rank when the receiver stays
 * at or below the average; a donor stops giving once it is no longer above the average. The
 * least loaded rank is re-read from a heap after every move. Receivers end at or below the
 * average and donors only lose work, so the maximum never increases.
 * Cost: O(n log n + np log np) plus O(log np) per move.
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rank_time {
    double t;
    int32_t r;
} rank_time;

static int heaviest_first(const void *pa, const void *pb)
{
    const rank_time *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? 1 : -1;
    return (a->r > b->r) - (a->r < b->r);
}

int tide_global_smartlb(const tide_global_input *in, const tide_global_params *params,
                        int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    int32_t np = in->np;
    if (in->nobj > 0) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    double *time = malloc((size_t)np * sizeof *time);
    rank_time *donors = malloc((size_t)np * sizeof *donors);
    lb_heap least = {0};
    lb_by_rank g = {0};
    rc = TIDE_PLAN_ENOMEM;
    if (time == NULL || donors == NULL || lb_heap_init(&least, np, false) != TIDE_PLAN_OK ||
        lb_by_rank_make(in, in->owner, &g) != TIDE_PLAN_OK)
        goto out;
    rc = TIDE_PLAN_OK;
    double avg = lb_rank_times(in, in->owner, time);
    double max = time[0], min = time[0];
    for (int32_t r = 1; r < np; r++) {
        if (time[r] > max) max = time[r];
        if (time[r] < min) min = time[r];
    }
    if (max <= 0.0 || (max - min) / max <= p.smart_threshold) goto out;
    int32_t nd = 0;
    for (int32_t r = 0; r < np; r++) {
        lb_heap_push(&least, r, time[r]);
        if (time[r] >= avg) donors[nd++] = (rank_time){time[r], r};
    }
    qsort(donors, (size_t)nd, sizeof *donors, heaviest_first);
    for (int32_t i = 0; i < nd; i++) {
        int32_t d = donors[i].r;
        for (int64_t j = g.start[d]; j < g.start[d + 1] && time[d] > avg; j++) {
            int64_t o = g.obj[j];
            int32_t recv = lb_heap_top(&least);
            double w = in->load[o];
            if (recv == d || w <= 0.0 || time[recv] + w / lb_speed(in, recv) > avg) continue;
            new_owner[o] = recv;
            time[d] -= w / lb_speed(in, d);
            time[recv] += w / lb_speed(in, recv);
            lb_heap_update(&least, d, time[d]);
            lb_heap_update(&least, recv, time[recv]);
        }
    }
out:
    free(time);
    free(donors);
    lb_heap_free(&least);
    lb_by_rank_free(&g);
    return rc;
}
