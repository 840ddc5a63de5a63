/* Adaptive refinement without MPI: after every adaptation on random criteria the mesh is
 * conforming (no hanging node), in Sierpinski order, covers the square, and holds the same mass;
 * refining then coarsening back restores the tree and the whole state (depth, momentum, bed)
 * bitwise (docs/samoa_proxy.md, "Transfer"); a lake at rest stays at rest. */
#include "../amr.h"
#include "../scenario.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static double rnd(void) /* splitmix64, in [0, 1) */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static double lake_bed(const void *ctx, const double x[3], const double y[3])
{
    return samoa_lake_bed_mean(ctx, x, y);
}

static samoa_lake lake;
static samoa_amr_params params(int min_level, int max_level)
{
    return (samoa_amr_params){min_level, max_level, 1e-10, lake_bed, &lake};
}

static double mass(const samoa_mesh *m)
{
    double sum = 0;
    for (int64_t i = 0; i < m->n; i++)
        sum +=
            m->state[SAMOA_NSTATE * i + SAMOA_H] * ldexp(4.0 * m->half * m->half, -1 - m->level[i]);
    return sum;
}

static int shares_edge(const samoa_tri *a, const samoa_tri *b)
{
    int common = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            common += a->x[i] == b->x[j] && a->y[i] == b->y[j];
    return common == 2;
}

/* Conforming, Sierpinski-ordered, covering the square, paths matching levels. */
static void check_mesh(const samoa_mesh *m, const char *when)
{
    CHECK(samoa_mesh_conforming(m), "%s: hanging node in a mesh of %lld leaves", when,
          (long long)m->n);
    double area = 0;
    for (int64_t i = 0; i < m->n; i++) {
        area += ldexp(1.0, -1 - m->level[i]);
        CHECK(m->path[i] >> (m->level[i] + 1) == 1, "%s: leaf %lld path/level", when, (long long)i);
        if (i + 1 < m->n)
            CHECK(shares_edge(&m->tri[i], &m->tri[i + 1]), "%s: leaves %lld, %lld not adjacent",
                  when, (long long)i, (long long)i + 1);
    }
    CHECK(area == 1.0, "%s: leaves cover %.17g of the square", when, area);
}

/* The lake's initial state with random momentum. */
static void fill_state(samoa_mesh *m)
{
    samoa_grid g;
    if (samoa_grid_from_tris(&g, m->tri, m->level, m->n, m->half) != 0) abort();
    samoa_scenario_init(&g, &lake, 0, m->n, m->state);
    for (int64_t i = 0; i < m->n; i++) {
        m->state[SAMOA_NSTATE * i + SAMOA_HU] = rnd() - 0.5;
        m->state[SAMOA_NSTATE * i + SAMOA_HV] = rnd() - 0.5;
    }
    samoa_grid_free(&g);
}

static int8_t *random_marks(int64_t n, double p_refine, double p_coarsen)
{
    int8_t *mark = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++) {
        double r = rnd();
        mark[i] = r < p_refine ? 1 : r < p_refine + p_coarsen ? -1 : 0;
    }
    return mark;
}

static void test_random_adaptations(uint64_t seed)
{
    rng_state = seed;
    samoa_amr_params p = params(2, 11);
    samoa_mesh m;
    if (samoa_mesh_uniform(&m, 4, 2.0, &p) != 0) abort();
    fill_state(&m);
    double m0 = mass(&m);
    for (int round = 0; round < 12; round++) {
        int8_t *mark = random_marks(m.n, 0.15, 0.6), *after = malloc((size_t)m.n + 1);
        char when[64];
        CHECK(samoa_mesh_coarsen(&m, mark, after, &p) >= 0, "coarsen failed");
        snprintf(when, sizeof when, "seed %llu round %d coarsen", (unsigned long long)seed, round);
        check_mesh(&m, when);
        CHECK(samoa_mesh_refine(&m, after, &p) >= 0, "refine failed");
        snprintf(when, sizeof when, "seed %llu round %d refine", (unsigned long long)seed, round);
        check_mesh(&m, when);
        free(mark);
        free(after);
        double drift = fabs(mass(&m) - m0) / m0;
        CHECK(drift <= 1e-14, "seed %llu round %d: mass drift %.3e", (unsigned long long)seed,
              round, drift);
        for (int64_t i = 0; i < m.n; i++)
            CHECK(m.state[SAMOA_NSTATE * i] >= 0, "negative depth after adaptation");
        for (int64_t i = 0; i < m.n; i++)
            CHECK(m.level[i] >= 2 && m.level[i] <= 11, "level %d out of [2, 11]", m.level[i]);
    }
    samoa_mesh_free(&m);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* -1 for the leaves strictly below a leaf of the reference (sorted paths), 0 for the others. */
static int8_t *marks_below(const samoa_mesh *m, const uint64_t *ref, int64_t nref)
{
    int8_t *mark = malloc((size_t)m->n + 1);
    for (int64_t i = 0; i < m->n; i++) {
        mark[i] = 0;
        for (int up = 1; up <= m->level[i]; up++) {
            uint64_t a = m->path[i] >> up;
            if (bsearch(&a, ref, (size_t)nref, sizeof a, cmp_u64)) mark[i] = -1;
        }
    }
    return mark;
}

static void test_refine_then_coarsen(uint64_t seed)
{
    rng_state = seed;
    samoa_amr_params p = params(0, 12);
    samoa_mesh m, ref;
    if (samoa_mesh_uniform(&m, 5, 2.0, &p) != 0) abort();
    for (int r = 0; r < 3; r++) { /* a non-uniform start */
        int8_t *mark = random_marks(m.n, 0.2, 0);
        samoa_mesh_refine(&m, mark, &p);
        free(mark);
    }
    fill_state(&m);
    ref = m; /* the same sizes, own copies of the arrays */
    ref.tri = malloc((size_t)m.n * sizeof *ref.tri);
    ref.level = malloc((size_t)m.n * sizeof *ref.level);
    ref.path = malloc((size_t)m.n * sizeof *ref.path);
    ref.tag = malloc((size_t)m.n * sizeof *ref.tag);
    ref.state = malloc((size_t)m.n * SAMOA_NSTATE * sizeof *ref.state);
    memcpy(ref.tri, m.tri, (size_t)m.n * sizeof *ref.tri);
    memcpy(ref.level, m.level, (size_t)m.n * sizeof *ref.level);
    memcpy(ref.path, m.path, (size_t)m.n * sizeof *ref.path);
    memcpy(ref.tag, m.tag, (size_t)m.n * sizeof *ref.tag);
    memcpy(ref.state, m.state, (size_t)m.n * SAMOA_NSTATE * sizeof *ref.state);
    for (int r = 0; r < 4; r++) {
        int8_t *mark = random_marks(m.n, 0.3, 0);
        samoa_mesh_refine(&m, mark, &p);
        free(mark);
    }
    int64_t fine = m.n;
    uint64_t *sorted = malloc((size_t)ref.n * sizeof *sorted);
    memcpy(sorted, ref.path, (size_t)ref.n * sizeof *sorted);
    qsort(sorted, (size_t)ref.n, sizeof *sorted, cmp_u64);
    for (int r = 0; r < 40; r++) {
        int8_t *mark = marks_below(&m, sorted, ref.n);
        int64_t merged = samoa_mesh_coarsen(&m, mark, NULL, &p);
        free(mark);
        check_mesh(&m, "coarsening back");
        if (merged <= 0) break;
    }
    CHECK(m.n == ref.n, "seed %llu: %lld leaves -> %lld -> %lld, not back",
          (unsigned long long)seed, (long long)ref.n, (long long)fine, (long long)m.n);
    int same_tree = m.n == ref.n, same_bits = same_tree;
    int64_t diff = 0;
    for (int64_t i = 0; same_tree && i < m.n; i++) {
        same_tree = same_tree && !memcmp(&m.tri[i], &ref.tri[i], sizeof m.tri[i]) &&
                    m.level[i] == ref.level[i] && m.path[i] == ref.path[i];
        const double *a = m.state + SAMOA_NSTATE * i, *b = ref.state + SAMOA_NSTATE * i;
        diff += memcmp(a, b, SAMOA_NSTATE * sizeof(double)) != 0;
    }
    same_bits = same_bits && diff == 0;
    CHECK(same_tree, "seed %llu: tree not restored", (unsigned long long)seed);
    CHECK(same_bits, "seed %llu: the state of %lld leaves not bitwise restored",
          (unsigned long long)seed, (long long)diff);
    free(sorted);
    samoa_mesh_free(&ref);
    samoa_mesh_free(&m);
}

/* A lake at rest refined at its shore (the criterion) keeps its flat surface bitwise wherever
 * the refined cell's parent was wholly wet; within a parent's size of the shore the depth is
 * copied (docs/samoa_proxy.md), so only there may the surface move. Mass is conserved. */
static void test_lake_at_rest(void)
{
    const double level = -0.02;
    samoa_amr_params p = params(4, 10);
    samoa_mesh m;
    if (samoa_mesh_uniform(&m, 6, 2.0, &p) != 0) abort();
    for (int64_t i = 0; i < m.n; i++) {
        double *s = m.state + SAMOA_NSTATE * i;
        s[SAMOA_H] = fmax(0.0, level - s[SAMOA_B]);
        s[SAMOA_HU] = s[SAMOA_HV] = 0;
    }
    double m0 = mass(&m);
    for (int r = 0; r < 4; r++) {
        samoa_grid g;
        if (samoa_grid_from_tris(&g, m.tri, m.level, m.n, m.half) != 0) abort();
        int8_t *mark = malloc((size_t)m.n + 1);
        samoa_amr_criterion(&g, m.state, p.h_dry, 0.2, 1, mark);
        for (int64_t i = 0; i < m.n; i++) /* and a patch inside the lake */
            if (hypot(g.cells[i].cx, g.cells[i].cy) < 0.35) mark[i] = 1;
        CHECK(samoa_mesh_refine(&m, mark, &p) > 0, "the shore did not refine");
        free(mark);
        samoa_grid_free(&g);
        check_mesh(&m, "lake at rest");
    }
    double shore = lake.a * sqrt(1.0 + level / lake.h0), worst = 0;
    int64_t inner = 0, fine = 0;
    for (int64_t i = 0; i < m.n; i++) {
        double x[3], y[3];
        samoa_tri_coords(&m.tri[i], m.half, x, y);
        double cx = (x[0] + x[1] + x[2]) / 3, cy = (y[0] + y[1] + y[2]) / 3;
        double hyp = hypot(x[1] - x[0], y[1] - y[0]);
        const double *s = m.state + SAMOA_NSTATE * i;
        fine += m.level[i] == 10;
        if (m.level[i] > 6 && hypot(cx, cy) > shore - 4.5 * hyp) continue; /* 3 parents' hyp */
        inner += m.level[i] > 6;
        if (s[SAMOA_H] > 0) worst = fmax(worst, fabs(s[SAMOA_H] + s[SAMOA_B] - level));
        CHECK(s[SAMOA_HU] == 0 && s[SAMOA_HV] == 0, "momentum appeared");
    }
    double drift = fabs(mass(&m) - m0) / m0;
    printf("lake at rest refined to %lld leaves (%lld at level 10): surface off by %.2e in %lld "
           "inner cells, mass drift %.2e\n",
           (long long)m.n, (long long)fine, worst, (long long)inner, drift);
    CHECK(fine > 0 && inner > 0, "nothing refined to level 10 or no inner cell");
    CHECK(worst <= 1e-16, "surface of the lake at rest moved by %.3e", worst);
    CHECK(drift <= 1e-14, "mass drift %.3e", drift);
    samoa_mesh_free(&m);
}

/* The criterion: with no slope refinement exactly the cells on the front between water and land
 * are marked, each buffer layer adds their neighbours, and a slope threshold below the lake's
 * surface slope (0.1) marks all of the water too. */
static void test_criterion(void)
{
    samoa_grid g;
    if (samoa_grid_build(&g, 8, 2.0) != 0) abort();
    double *state = malloc((size_t)g.ncells * SAMOA_NSTATE * sizeof *state);
    samoa_scenario_init(&g, &lake, 0, g.ncells, state);
    int8_t *m0 = malloc((size_t)g.ncells), *m1 = malloc((size_t)g.ncells);
    int8_t *ms = malloc((size_t)g.ncells);
    samoa_amr_criterion(&g, state, 1e-4, INFINITY, 0, m0);
    samoa_amr_criterion(&g, state, 1e-4, INFINITY, 1, m1);
    samoa_amr_criterion(&g, state, 1e-4, 0.05, 0, ms);
    int64_t n0 = 0, n1 = 0, water = 0;
    for (int64_t c = 0; c < g.ncells; c++) {
        int wet = state[SAMOA_NSTATE * c] > 1e-4, front = 0, near = m0[c] > 0;
        for (int e = 0; e < 3; e++) {
            int64_t j = g.cells[c].nb[e];
            if (j < 0) continue;
            front |= (state[SAMOA_NSTATE * j] > 1e-4) != wet;
            near |= m0[j] > 0;
        }
        CHECK((m0[c] > 0) == front, "cell %lld: front %d but mark %d", (long long)c, front, m0[c]);
        CHECK((m1[c] > 0) == near, "cell %lld: one layer off the front but mark %d", (long long)c,
              m1[c]);
        CHECK(!wet || ms[c] > 0, "water cell %lld not marked at slope 0.05", (long long)c);
        n0 += m0[c] > 0, n1 += m1[c] > 0, water += wet;
    }
    printf("criterion at depth 8: %lld front cells, %lld with one layer, %lld water cells\n",
           (long long)n0, (long long)n1, (long long)water);
    CHECK(n0 > 0 && n1 > n0 && water > n0, "criterion marked nothing");
    free(m0);
    free(m1);
    free(ms);
    free(state);
    samoa_grid_free(&g);
}

int main(void)
{
    lake = samoa_lake_default();
    test_criterion();
    test_lake_at_rest();
    for (uint64_t seed = 1; seed <= 40; seed++)
        test_random_adaptations(seed);
    for (uint64_t seed = 1; seed <= 20; seed++)
        test_refine_then_coarsen(seed);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
