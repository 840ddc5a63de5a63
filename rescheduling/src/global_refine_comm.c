/*
 * global_refine_comm.c - RefineLB with communication.
 *
 * cost(rank) = time + alpha x (volume between its objects and objects elsewhere). Moving object
 * o (work w, total edge volume T, V_r of it to objects on rank r) from d to b changes only two
 * costs: d loses w / speed[d] + alpha (T - 2 V_d) and b gains w / speed[b] + alpha (T - 2 V_b);
 * a third rank keeps its boundary (its edges to o now cross to b instead of d).
 *
 * The limit is threshold x the average cost of the current mapping, fixed for the whole pass.
 * The most overloaded rank d tries each of its objects towards the least loaded rank and towards
 * every rank holding a neighbour of o, and makes the move that minimises max(new cost of d, new
 * cost of b), provided the receiver stays within the limit and both end below d's current cost.
 * So the maximum cost never increases, a receiver never becomes a donor and each object moves at
 * most once. Per move O(sum of degrees of d's objects + log np).
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct comm_move {
    int64_t o;
    int32_t to;
    double worst, new_d, new_b;
} comm_move;

/* Offer o to rank b; keep it if it beats the best offer so far (ties: lower o, then lower b). */
static void consider(comm_move *best, int64_t o, int32_t b, double new_d, double new_b,
                     double cur_d, double limit)
{
    if (new_b > limit || new_b >= cur_d || new_d >= cur_d) return;
    double worst = new_d > new_b ? new_d : new_b;
    if (best->o >= 0 && (worst > best->worst ||
                         (worst == best->worst && (o > best->o || (o == best->o && b > best->to)))))
        return;
    *best = (comm_move){o, b, worst, new_d, new_b};
}

int tide_global_refine_comm(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    int32_t np = in->np;
    double a = p.comm_alpha;
    if (in->nobj > 0) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    double *cost = malloc((size_t)np * sizeof *cost);
    lb_heap over = {0}, least = {0};
    lb_by_rank grp = {0};
    lb_graph g = {0};
    lb_nbvol s = {0};
    rc = TIDE_PLAN_ENOMEM;
    if (cost == NULL || lb_heap_init(&over, np, true) != TIDE_PLAN_OK ||
        lb_heap_init(&least, np, false) != TIDE_PLAN_OK ||
        lb_by_rank_make(in, in->owner, &grp) != TIDE_PLAN_OK ||
        lb_graph_make(in, &g) != TIDE_PLAN_OK || lb_nbvol_init(&s, np) != TIDE_PLAN_OK)
        goto out;
    lb_rank_times(in, in->owner, cost);
    for (int64_t o = 0; o < in->nobj; o++)
        for (int64_t e = g.off[o]; e < g.off[o + 1]; e++)
            if (in->owner[g.adj[e]] != in->owner[o]) cost[in->owner[o]] += a * g.vol[e];
    double sum = 0.0;
    for (int32_t r = 0; r < np; r++)
        sum += cost[r];
    double limit = p.refine_threshold * sum / np;
    for (int32_t r = 0; r < np; r++) {
        lb_heap_push(&least, r, cost[r]);
        if (cost[r] > limit) lb_heap_push(&over, r, cost[r]);
    }
    while (over.n > 0) {
        int32_t d = lb_heap_top(&over);
        int32_t low = lb_heap_top(&least);
        comm_move best = {.o = -1};
        for (int64_t j = grp.start[d]; j < grp.start[d + 1]; j++) {
            int64_t o = grp.obj[j];
            if (new_owner[o] != d) continue;
            double w = in->load[o], t = g.total[o];
            lb_nbvol_fill(&s, &g, new_owner, o);
            double new_d = cost[d] - w / lb_speed(in, d) - a * (t - 2.0 * s.vol[d]);
            if (low != d)
                consider(&best, o, low, new_d,
                         cost[low] + w / lb_speed(in, low) + a * (t - 2.0 * s.vol[low]), cost[d],
                         limit);
            for (int32_t i = 0; i < s.ntouched; i++) {
                int32_t b = s.touched[i];
                if (b == d || b == low) continue;
                consider(&best, o, b, new_d,
                         cost[b] + w / lb_speed(in, b) + a * (t - 2.0 * s.vol[b]), cost[d], limit);
            }
        }
        lb_nbvol_clear(&s);
        if (best.o < 0) {
            lb_heap_remove(&over, d);
            continue;
        }
        new_owner[best.o] = best.to;
        cost[d] = best.new_d;
        cost[best.to] = best.new_b;
        lb_heap_update(&least, d, cost[d]);
        lb_heap_update(&least, best.to, cost[best.to]);
        if (cost[d] > limit)
            lb_heap_update(&over, d, cost[d]);
        else
            lb_heap_remove(&over, d);
    }
    rc = TIDE_PLAN_OK;
out:
    free(cost);
    lb_heap_free(&over);
    lb_heap_free(&least);
    lb_by_rank_free(&grp);
    lb_graph_free(&g);
    lb_nbvol_free(&s);
    return rc;
}

const tide_global_strategy tide_global_strategy_refine_comm = {
    .name = "refine_comm", .plan = tide_global_refine_comm, .protocol = TIDE_GLOBAL_CENTRAL};
