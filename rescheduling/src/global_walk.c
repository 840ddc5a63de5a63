/*
 * global_walk.c - the donor walk that SmartLB and AverageLB share: rank times, the average, the
 * ranks above it heaviest first, a min-heap for the least loaded rank, and one move.
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

int lb_walk_init(lb_walk *w, const tide_global_input *in, bool at_avg, int32_t *new_owner)
{
    int32_t np = in->np;
    memset(w, 0, sizeof *w);
    if (in->nobj > 0) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    w->time = malloc((size_t)np * sizeof *w->time);
    w->donors = malloc((size_t)np * sizeof *w->donors);
    if (w->time == NULL || w->donors == NULL ||
        lb_heap_init(&w->least, np, false) != TIDE_PLAN_OK ||
        lb_by_rank_make(in, in->owner, &w->g) != TIDE_PLAN_OK)
        return TIDE_PLAN_ENOMEM;
    w->avg = lb_rank_times(in, in->owner, w->time);
    for (int32_t r = 0; r < np; r++)
        lb_heap_push(&w->least, r, w->time[r]);
    w->ndonors = lb_donors(np, w->time, w->avg, at_avg, w->donors);
    return w->ndonors < 0 ? TIDE_PLAN_ENOMEM : TIDE_PLAN_OK;
}

void lb_walk_move(lb_walk *w, const tide_global_input *in, int64_t o, int32_t to,
                  int32_t *new_owner)
{
    int32_t from = new_owner[o];
    new_owner[o] = to;
    w->time[from] -= in->load[o] / lb_speed(in, from);
    w->time[to] += in->load[o] / lb_speed(in, to);
    lb_heap_update(&w->least, from, w->time[from]);
    lb_heap_update(&w->least, to, w->time[to]);
}

void lb_walk_free(lb_walk *w)
{
    free(w->time);
    free(w->donors);
    lb_heap_free(&w->least);
    lb_by_rank_free(&w->g);
}
