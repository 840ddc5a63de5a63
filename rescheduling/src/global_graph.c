/*
 * global_graph.c - the communication graph made undirected, and per-rank neighbour volumes.
 *
 * The comm strategies need both the edges an object sends on and those it receives on (moving
 * it changes the cost of both ends), so the input CSR is symmetrised once: O(n + e).
 */
#include "global_internal.h"

#include <stdlib.h>

int lb_graph_make(const tide_global_input *in, lb_graph *g)
{
    int64_t n = in->nobj;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->total = calloc((size_t)(n > 0 ? n : 1), sizeof *g->total);
    g->adj = NULL;
    g->vol = NULL;
    if (g->off == NULL || g->total == NULL) goto nomem;
    bool has = in->comm_adj != NULL;
    for (int64_t o = 0; has && o < n; o++)
        for (int64_t e = in->comm_off[o]; e < in->comm_off[o + 1]; e++) {
            int64_t v = in->comm_adj[e];
            if (v == o || in->comm_vol[e] == 0.0) continue;
            g->off[o + 1]++;
            g->off[v + 1]++;
        }
    for (int64_t o = 0; o < n; o++)
        g->off[o + 1] += g->off[o];
    size_t m = (size_t)g->off[n];
    g->adj = malloc((m > 0 ? m : 1) * sizeof *g->adj);
    g->vol = malloc((m > 0 ? m : 1) * sizeof *g->vol);
    int64_t *fill = malloc((size_t)(n > 0 ? n : 1) * sizeof *fill);
    if (g->adj == NULL || g->vol == NULL || fill == NULL) {
        free(fill);
        goto nomem;
    }
    for (int64_t o = 0; o < n; o++)
        fill[o] = g->off[o];
    for (int64_t o = 0; has && o < n; o++)
        for (int64_t e = in->comm_off[o]; e < in->comm_off[o + 1]; e++) {
            int64_t v = in->comm_adj[e];
            double w = in->comm_vol[e];
            if (v == o || w == 0.0) continue;
            g->adj[fill[o]] = v;
            g->vol[fill[o]++] = w;
            g->adj[fill[v]] = o;
            g->vol[fill[v]++] = w;
            g->total[o] += w;
            g->total[v] += w;
        }
    free(fill);
    return TIDE_PLAN_OK;
nomem:
    lb_graph_free(g);
    return TIDE_PLAN_ENOMEM;
}

void lb_graph_free(lb_graph *g)
{
    free(g->off);
    free(g->adj);
    free(g->vol);
    free(g->total);
    g->off = g->adj = NULL;
    g->vol = g->total = NULL;
}

int lb_nbvol_init(lb_nbvol *s, int32_t np)
{
    s->vol = calloc((size_t)np, sizeof *s->vol);
    s->touched = malloc((size_t)np * sizeof *s->touched);
    s->ntouched = 0;
    if (s->vol == NULL || s->touched == NULL) {
        lb_nbvol_free(s);
        return TIDE_PLAN_ENOMEM;
    }
    return TIDE_PLAN_OK;
}

void lb_nbvol_free(lb_nbvol *s)
{
    free(s->vol);
    free(s->touched);
    s->vol = NULL;
    s->touched = NULL;
}

void lb_nbvol_fill(lb_nbvol *s, const lb_graph *g, const int32_t *owner, int64_t o)
{
    lb_nbvol_clear(s);
    for (int64_t e = g->off[o]; e < g->off[o + 1]; e++) {
        int32_t r = owner[g->adj[e]];
        if (r < 0) continue;
        if (s->vol[r] == 0.0) s->touched[s->ntouched++] = r;
        s->vol[r] += g->vol[e];
    }
}

void lb_nbvol_clear(lb_nbvol *s)
{
    for (int32_t i = 0; i < s->ntouched; i++)
        s->vol[s->touched[i]] = 0.0;
    s->ntouched = 0;
}
