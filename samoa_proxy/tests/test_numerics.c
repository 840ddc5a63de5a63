/* Numerics without MPI: the Sierpinski grid, the lake at rest, mass conservation, convergence
 * to Thacker's solution, and that the update does not depend on how the grid is cut. */
#include "../grid.h"
#include "../scenario.h"
#include "../section.h"
#include "../swe.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int shares_edge(const samoa_cell *a, const samoa_cell *b)
{
    int common = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            common += a->x[i] == b->x[j] && a->y[i] == b->y[j];
    return common == 2;
}

static void test_grid(int depth)
{
    samoa_grid g;
    CHECK(samoa_grid_build(&g, depth, 2.0) == 0, "build depth %d", depth);
    CHECK(g.ncells == (INT64_C(2) << depth), "cells %lld", (long long)g.ncells);
    int64_t boundary = 0;
    double area = 0;
    for (int64_t c = 0; c < g.ncells; c++) {
        const samoa_cell *k = &g.cells[c];
        double a = 0.5 * fabs((k->x[1] - k->x[0]) * (k->y[2] - k->y[0]) -
                              (k->y[1] - k->y[0]) * (k->x[2] - k->x[0]));
        area += a;
        CHECK(fabs(a - g.area) <= 1e-14 * g.area, "cell %lld area %g != %g", (long long)c, a,
              g.area);
        if (c + 1 < g.ncells)
            CHECK(shares_edge(k, &g.cells[c + 1]), "cells %lld, %lld are not Sierpinski neighbours",
                  (long long)c, (long long)c + 1);
        for (int e = 0; e < 3; e++) {
            int64_t j = k->nb[e];
            if (j < 0) {
                boundary++;
                continue;
            }
            int back = -1;
            for (int f = 0; f < 3; f++)
                if (g.cells[j].nb[f] == c) back = f;
            CHECK(back >= 0, "neighbour relation not symmetric at %lld", (long long)c);
            if (back < 0) continue;
            CHECK(g.cells[j].nx[back] == -k->nx[e] && g.cells[j].ny[back] == -k->ny[e] &&
                      g.cells[j].len[back] == k->len[e],
                  "shared edge of %lld,%lld: normals not exact negatives", (long long)c,
                  (long long)j);
            /* outward: the normal points away from the cell's centroid */
            double mx = 0.5 * (k->x[e] + k->x[(e + 1) % 3]),
                   my = 0.5 * (k->y[e] + k->y[(e + 1) % 3]);
            CHECK((mx - k->cx) * k->nx[e] + (my - k->cy) * k->ny[e] > 0, "normal not outward");
        }
    }
    CHECK(fabs(area - 16.0) < 1e-12, "total area %g", area);
    /* the square's perimeter is 16 and every boundary edge is a leg or hypotenuse of one size */
    CHECK(boundary > 0 && boundary % 4 == 0, "boundary edges %lld", (long long)boundary);
    samoa_grid_free(&g);
}

typedef struct sim {
    samoa_grid g;
    samoa_lake lake;
    double *state, *out;
    int nsec;
    samoa_section *sec;
    double *buf;
    samoa_swe_params p;
    double t, max_speed;
} sim;

static void sim_init(sim *s, int depth, int nsec)
{
    memset(s, 0, sizeof *s);
    if (samoa_grid_build(&s->g, depth, 2.0) != 0) abort();
    s->lake = samoa_lake_default();
    int64_t n = s->g.ncells;
    s->state = malloc((size_t)n * SAMOA_NSTATE * sizeof(double));
    s->out = malloc((size_t)n * 3 * sizeof(double));
    s->buf = malloc((size_t)n * 2 * SAMOA_NSTATE * sizeof(double));
    s->sec = calloc((size_t)nsec, sizeof *s->sec);
    s->nsec = nsec;
    samoa_scenario_init(&s->g, &s->lake, 0, n, s->state);
    for (int k = 0; k < nsec; k++) {
        int64_t first, cnt;
        samoa_range(n, nsec, k, &first, &cnt);
        if (samoa_section_build(&s->sec[k], &s->g, first, (int32_t)cnt) != 0) abort();
    }
    s->p = (samoa_swe_params){s->lake.g, 0, 1e-10, 1};
    s->max_speed = 0;
    for (int64_t c = 0; c < n; c++)
        s->max_speed =
            fmax(s->max_speed, samoa_swe_speed(s->state + SAMOA_NSTATE * c, s->lake.g, s->p.h_dry));
}

static void sim_step(sim *s, double t_end)
{
    double dt = 0.45 * s->g.area / (s->g.perimeter * s->max_speed);
    if (t_end > 0 && s->t + dt > t_end) dt = t_end - s->t;
    s->p.dt = dt;
    double speed = 0;
    for (int k = 0; k < s->nsec; k++) {
        samoa_swe_result r;
        samoa_section_gather(&s->sec[k], s->state, s->buf);
        samoa_swe_update(s->sec[k].n, s->sec[k].geom, s->buf, s->out + 3 * s->sec[k].first, &s->p,
                         &r);
        speed = fmax(speed, r.max_speed);
    }
    for (int k = 0; k < s->nsec; k++)
        samoa_section_scatter(&s->sec[k], s->out + 3 * s->sec[k].first, s->state);
    s->t += dt;
    s->max_speed = speed;
}

static void sim_free(sim *s)
{
    for (int k = 0; k < s->nsec; k++)
        samoa_section_free(&s->sec[k]);
    free(s->sec);
    free(s->state);
    free(s->out);
    free(s->buf);
    samoa_grid_free(&s->g);
}

/* A lake at rest stays at rest, also where its shore cuts through cells. */
static void test_lake_at_rest(void)
{
    sim s;
    sim_init(&s, 8, 1);
    for (int64_t c = 0; c < s.g.ncells; c++) {
        double *st = s.state + SAMOA_NSTATE * c;
        st[SAMOA_H] = fmax(0.0, -0.02 - st[SAMOA_B]);
        st[SAMOA_HU] = st[SAMOA_HV] = 0;
    }
    s.max_speed = sqrt(s.lake.g * 0.1);
    double *h0 = malloc((size_t)s.g.ncells * sizeof *h0);
    for (int64_t c = 0; c < s.g.ncells; c++)
        h0[c] = s.state[SAMOA_NSTATE * c];
    for (int it = 0; it < 50; it++)
        sim_step(&s, 0);
    double dh = 0, mom = 0;
    for (int64_t c = 0; c < s.g.ncells; c++) {
        dh = fmax(dh, fabs(s.state[SAMOA_NSTATE * c] - h0[c]));
        mom = fmax(mom, fabs(s.state[SAMOA_NSTATE * c + 1]) + fabs(s.state[SAMOA_NSTATE * c + 2]));
    }
    printf("lake at rest: max |dh| %.3e, max |hu|+|hv| %.3e after 50 steps\n", dh, mom);
    CHECK(dh < 1e-14 && mom < 1e-14, "lake at rest moved: dh %g momentum %g", dh, mom);
    free(h0);
    sim_free(&s);
}

/* Runs the lake to t_end; returns the relative L1 error of h, and checks mass and positivity. */
static double run_lake(int depth, double t_end, int nsec, uint64_t *hash)
{
    sim s;
    sim_init(&s, depth, nsec);
    samoa_sums s0 = samoa_scenario_sums(&s.g, &s.lake, 0, 0, s.g.ncells, s.state);
    int steps = 0;
    while (s.t < t_end) {
        sim_step(&s, t_end);
        steps++;
    }
    samoa_sums s1 = samoa_scenario_sums(&s.g, &s.lake, s.t, 0, s.g.ncells, s.state);
    double drift = fabs(s1.mass - s0.mass) / s0.mass, hmin = INFINITY;
    for (int64_t c = 0; c < s.g.ncells; c++)
        hmin = fmin(hmin, s.state[SAMOA_NSTATE * c]);
    double err = s1.err_l1 / s1.exact_l1;
    printf("depth %2d sections %d: %lld cells, %d steps to t=%.3f, L1 error %.4e, mass drift "
           "%.2e, min h %.2e\n",
           depth, nsec, (long long)s.g.ncells, steps, s.t, err, drift, hmin);
    CHECK(drift <= 1e-12, "mass drift %g at depth %d", drift, depth);
    CHECK(hmin >= 0, "negative depth %g", hmin);
    if (hash) *hash = samoa_state_hash(0, s.g.ncells, s.state);
    sim_free(&s);
    return err;
}

int main(void)
{
    for (int d = 0; d <= 9; d++)
        test_grid(d);
    test_lake_at_rest();
    samoa_lake l = samoa_lake_default();
    double quarter = 0.25 * 6.283185307179586 / samoa_lake_omega(&l);
    double e8 = run_lake(8, quarter, 1, NULL), e10 = run_lake(10, quarter, 1, NULL);
    uint64_t h1, h7;
    double e12 = run_lake(12, quarter, 1, &h1);
    CHECK(e10 < 0.8 * e8 && e12 < 0.8 * e10, "error does not decrease: %g %g %g", e8, e10, e12);
    CHECK(e12 < 0.1, "error %g at depth 12", e12);
    run_lake(12, quarter, 7, &h7);
    CHECK(h1 == h7, "7 sections differ from 1: %016llx vs %016llx", (unsigned long long)h1,
          (unsigned long long)h7);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
