/*
 * global_greedy_comm.c - GreedyLB with communication: heaviest object first onto the rank whose
 * cost grows least, where cost(rank) = time + alpha x (volume between its objects and objects
 * on other ranks).
 *
 * Only neighbours already placed count (the others have no rank yet). Placing o on r adds
 * w / speed[r] + alpha (P - V_r) to r, where P is the volume to o's placed neighbours and V_r the
 * part of it on r, and alpha V_q to every other rank q holding neighbours (their boundary grows
 * by the same edges). Candidates are the ranks of o's placed neighbours and the cheapest rank
 * holding none of them (from the heap), so one placement costs O(deg log np), not O(np).
 */
#include "global_internal.h"

#include <stdlib.h>

static int32_t cheapest_untouched(lb_heap *h, const lb_nbvol *s)
{
    /* Neighbour ranks are set aside for the look-up; deg is small compared with np. */
    for (int32_t i = 0; i < s->ntouched; i++)
        lb_heap_remove(h, s->touched[i]);
    int32_t r = lb_heap_top(h);
    for (int32_t i = 0; i < s->ntouched; i++)
        lb_heap_push(h, s->touched[i], h->key[s->touched[i]]);
    return r;
}

int tide_global_greedy_comm(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    int32_t np = in->np;
    lb_heap h = {0};
    lb_graph g = {0};
    lb_nbvol s = {0};
    int64_t *order = lb_sort_heavy_first(in->nobj, in->load);
    rc = TIDE_PLAN_ENOMEM;
    if (order == NULL || lb_heap_init(&h, np, false) != TIDE_PLAN_OK ||
        lb_graph_make(in, &g) != TIDE_PLAN_OK || lb_nbvol_init(&s, np) != TIDE_PLAN_OK)
        goto out;
    for (int32_t r = 0; r < np; r++)
        lb_heap_push(&h, r, 0.0);
    for (int64_t o = 0; o < in->nobj; o++)
        new_owner[o] = -1;
    for (int64_t j = 0; j < in->nobj; j++) {
        int64_t o = order[j];
        double w = in->load[o];
        lb_nbvol_fill(&s, &g, new_owner, o);
        double placed = 0.0;
        for (int32_t i = 0; i < s.ntouched; i++)
            placed += s.vol[s.touched[i]];
        int32_t best = cheapest_untouched(&h, &s);
        double best_cost =
            best >= 0 ? h.key[best] + w / lb_speed(in, best) + p.comm_alpha * placed : 0.0;
        for (int32_t i = 0; i < s.ntouched; i++) {
            int32_t r = s.touched[i];
            double c = h.key[r] + w / lb_speed(in, r) + p.comm_alpha * (placed - s.vol[r]);
            if (best < 0 || c < best_cost || (c == best_cost && r < best)) {
                best = r;
                best_cost = c;
            }
        }
        new_owner[o] = best;
        lb_heap_update(&h, best, best_cost);
        for (int32_t i = 0; i < s.ntouched; i++) {
            int32_t q = s.touched[i];
            if (q != best) lb_heap_update(&h, q, h.key[q] + p.comm_alpha * s.vol[q]);
        }
    }
    rc = TIDE_PLAN_OK;
out:
    free(order);
    lb_heap_free(&h);
    lb_graph_free(&g);
    lb_nbvol_free(&s);
    return rc;
}

const tide_global_strategy tide_global_strategy_greedy_comm = {
    .name = "greedy_comm", .plan = tide_global_greedy_comm, .protocol = TIDE_GLOBAL_CENTRAL};
