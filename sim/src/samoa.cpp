/* The AMR-like workload (--samoa DEPTH): samoa_proxy's oscillating lake (docs/samoa_proxy.md) at
 * any rank count, as task times, without its numerics. The grid, the decomposition and the cost
 * classes are samoa_proxy's own code (grid.c, section.c, swe.c, compiled in): rank r owns the
 * r-th of P equal ranges of the Sierpinski curve, cut into S sections (one task each); a cell is
 * dry, wet or coast (samoa_swe_classify) and costs the class's time per cell. The depths are the
 * lake's exact solution (samoa_lake_exact) at the phase's time instead of the numerical one, so
 * the wet disc -- and its coastline, the expensive cells -- circles the bowl and the heavy ranks
 * move along the curve from phase to phase, as in the proxy. Phase p is at time p K dt: dt is the
 * proxy's CFL step (cfl 0.45, the initial maximum wave speed), K = --samoa-steps proxy steps per
 * phase. A task's features are its section's dry, wet and coast cells, as samoa_proxy sets them
 * on a uniform grid, so the `task` and `auto` models can learn the class costs. Bytes: a
 * section's inputs (its cells' and halo's states, its geometry) and outputs (the new states and
 * the result), averaged over the sections. */
#include "sim.h"

#include <cmath>
#include <cstring>

extern "C" {
#include "grid.h"
#include "section.h"
#include "swe.h"
}

#define SAMOA_HALF 2.0   /* the square [-2, 2]^2 (samoa_proxy.c) */
#define SAMOA_HDRY 1e-10 /* samoa_proxy.c's dry depth */
#define SAMOA_CFL 0.45   /* samoa_proxy's default --cfl */

/* The proxy's time step: cfl x area / (perimeter x the largest initial wave speed). */
static double proxy_dt(const samoa_grid *g, const samoa_lake *l)
{
    double speed = 0;
    for (int64_t c = 0; c < g->ncells; c++) {
        double h, u, v, s[3];
        samoa_lake_exact(l, g->cells[c].cx, g->cells[c].cy, 0.0, &h, &u, &v);
        s[0] = h, s[1] = h * u, s[2] = h * v;
        speed = std::fmax(speed, samoa_swe_speed(s, l->g, SAMOA_HDRY));
    }
    return SAMOA_CFL * g->area / (g->perimeter * speed);
}

/* Each cell's class at time t, as the proxy's kernel classifies it (on the cell's and its
 * neighbours' depths). */
static void classify(const samoa_grid *g, const samoa_lake *l, double t, std::vector<double> *h,
                     std::vector<unsigned char> *cls)
{
    for (int64_t c = 0; c < g->ncells; c++) {
        double u, v;
        samoa_lake_exact(l, g->cells[c].cx, g->cells[c].cy, t, &(*h)[(size_t)c], &u, &v);
    }
    for (int64_t c = 0; c < g->ncells; c++) {
        bool wet = (*h)[(size_t)c] > SAMOA_HDRY, wet_nb = false, dry_nb = false;
        for (int e = 0; e < 3; e++) {
            int64_t j = g->cells[c].nb[e];
            if (j < 0) continue;
            ((*h)[(size_t)j] > SAMOA_HDRY ? wet_nb : dry_nb) = true;
        }
        (*cls)[(size_t)c] =
            wet ? (dry_nb ? SAMOA_COAST : SAMOA_WET) : (wet_nb ? SAMOA_COAST : SAMOA_DRY);
    }
}

/* Mean bytes of a section task's inputs and outputs (samoa_proxy.c: states of the cells and the
 * halo, geometry; new states and the result). */
static int section_bytes(const samoa_grid *g, int P, int S, double *in, double *out)
{
    double sin = 0, sout = 0;
    for (int r = 0; r < P; r++) {
        int64_t first, count;
        samoa_range(g->ncells, P, r, &first, &count);
        for (int s = 0; s < S; s++) {
            int64_t sf, sc;
            samoa_range(count, S, s, &sf, &sc);
            samoa_section sec;
            if (samoa_section_build(&sec, g, first + sf, (int32_t)sc) != 0) return -1;
            sin += (double)(sec.n + sec.nhalo) * SAMOA_NSTATE * sizeof(double) +
                   (double)sec.n * sizeof(samoa_cell_geom);
            sout += (double)sec.n * 3 * sizeof(double) + sizeof(samoa_swe_result);
            samoa_section_free(&sec);
        }
    }
    *in = sin / (P * S);
    *out = sout / (P * S);
    return 0;
}

int sim_samoa_make(const sim_config *c, sim_workload *w, char *err, size_t len)
{
    samoa_grid g;
    int P = c->ranks, S = c->tasks_per_rank;
    if (samoa_grid_build(&g, c->samoa_depth, SAMOA_HALF) != 0)
        return snprintf(err, len, "tide-sim: --samoa %d: no memory for the grid", c->samoa_depth),
               -1;
    if (g.ncells < (int64_t)P * S) {
        snprintf(err, len, "tide-sim: --samoa %d has %lld cells, fewer than %d ranks x %d sections",
                 c->samoa_depth, (long long)g.ncells, P, S);
        samoa_grid_free(&g);
        return -1;
    }
    samoa_lake l = samoa_lake_default();
    double dt = proxy_dt(&g, &l);
    w->ranks = P;
    w->phases = c->iters;
    w->threads = 0;
    w->feature.clear();
    w->nfeat = 3; /* a section's dry, wet and coast cells, as samoa_proxy on a uniform grid */
    w->task_feat.assign((size_t)w->phases, std::vector<std::vector<double>>((size_t)P));
    w->mhz = 0;
    w->ntasks.assign((size_t)w->phases, std::vector<int>((size_t)P, S));
    w->dur.assign((size_t)w->phases, std::vector<double>((size_t)P, 0.0));
    w->task_dur.assign((size_t)w->phases, std::vector<std::vector<double>>((size_t)P));
    std::vector<double> h((size_t)g.ncells);
    std::vector<unsigned char> cls((size_t)g.ncells);
    for (int p = 0; p < w->phases; p++) {
        classify(&g, &l, p * c->samoa_steps * dt, &h, &cls);
        for (int r = 0; r < P; r++) {
            int64_t first, count;
            samoa_range(g.ncells, P, r, &first, &count);
            std::vector<double> &td = w->task_dur[(size_t)p][(size_t)r];
            std::vector<double> &tf = w->task_feat[(size_t)p][(size_t)r];
            for (int s = 0; s < S; s++) {
                int64_t sf, sc;
                samoa_range(count, S, s, &sf, &sc);
                double us = 0, n[3] = {0, 0, 0};
                for (int64_t i = first + sf; i < first + sf + sc; i++) {
                    us += c->samoa_cost_us[cls[(size_t)i]];
                    n[cls[(size_t)i]] += 1;
                }
                td.push_back(1e-6 * us);
                tf.insert(tf.end(), n, n + 3);
                w->dur[(size_t)p][(size_t)r] += 1e-6 * us / S; /* the mean, for readers of dur */
            }
        }
    }
    int rc = section_bytes(&g, P, S, &w->task_bytes, &w->result_bytes);
    samoa_grid_free(&g);
    if (rc) return snprintf(err, len, "tide-sim: --samoa: no memory for the sections"), -1;
    char name[96];
    snprintf(name, sizeof name, "samoa lake depth %d, %d sections/rank, %d steps/phase",
             c->samoa_depth, S, c->samoa_steps);
    w->name = name;
    return 0;
}
