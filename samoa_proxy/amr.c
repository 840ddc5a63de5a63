#include "amr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int mesh_alloc(samoa_mesh *m, int64_t n, double half)
{
    size_t k = (size_t)n + 1;
    *m = (samoa_mesh){.n = n, .half = half};
    m->tri = malloc(k * sizeof *m->tri);
    m->level = malloc(k * sizeof *m->level);
    m->path = malloc(k * sizeof *m->path);
    m->tag = malloc(k * sizeof *m->tag);
    m->state = malloc(k * SAMOA_NSTATE * sizeof *m->state);
    if (m->tri && m->level && m->path && m->tag && m->state) return 0;
    samoa_mesh_free(m);
    return -1;
}

void samoa_mesh_free(samoa_mesh *m)
{
    free(m->tri);
    free(m->level);
    free(m->path);
    free(m->tag);
    free(m->state);
    m->tri = NULL, m->level = NULL, m->path = NULL, m->tag = NULL, m->state = NULL;
    m->n = 0;
}

static double bed_of(const samoa_tri *t, double half, const samoa_amr_params *p)
{
    double x[3], y[3];
    samoa_tri_coords(t, half, x, y);
    return p->bed(p->bed_ctx, x, y);
}

/* Copies leaf i of src to leaf j of dst. */
static void leaf_copy(samoa_mesh *dst, int64_t j, const samoa_mesh *src, int64_t i)
{
    dst->tri[j] = src->tri[i];
    dst->level[j] = src->level[i];
    dst->path[j] = src->path[i];
    dst->tag[j] = src->tag[i];
    memcpy(dst->state + SAMOA_NSTATE * j, src->state + SAMOA_NSTATE * i,
           SAMOA_NSTATE * sizeof(double));
}

static void uniform_walk(samoa_mesh *m, const samoa_tri *t, uint64_t path, int levels,
                         int64_t *next)
{
    if (levels == 0) {
        m->tri[*next] = *t;
        m->path[(*next)++] = path;
        return;
    }
    samoa_tri a, b;
    samoa_tri_bisect(t, &a, &b);
    uniform_walk(m, &a, path << 1, levels - 1, next);
    uniform_walk(m, &b, path << 1 | 1, levels - 1, next);
}

int samoa_mesh_uniform(samoa_mesh *m, int depth, double half, const samoa_amr_params *p)
{
    if (depth < 0 || depth > SAMOA_GRID_MAX_DEPTH) return -1;
    if (mesh_alloc(m, INT64_C(2) << depth, half) != 0) return -1;
    samoa_tri root[2];
    samoa_tri_roots(root);
    int64_t next = 0;
    uniform_walk(m, &root[0], 2, depth, &next);
    uniform_walk(m, &root[1], 3, depth, &next);
    for (int64_t i = 0; i < m->n; i++) {
        m->level[i] = depth;
        m->tag[i] = 0;
        double *s = m->state + SAMOA_NSTATE * i;
        s[SAMOA_H] = s[SAMOA_HU] = s[SAMOA_HV] = 0.0;
        s[SAMOA_B] = bed_of(&m->tri[i], half, p);
    }
    return 0;
}

/* The children's states. Where the parent and both children are wet, the children keep the
 * parent's surface h + b over their own beds (a lake at rest stays at rest), and the depths are
 * made to add up to exactly twice the parent's: the deeper child (lower bed) gets its surface
 * depth, clamped to [h, 2h], and the other one 2h minus that, which is exact (Sterbenz: both
 * operands are within a factor of two). The children's depths then sum to 2h without rounding,
 * so mass is conserved exactly and coarsening's mean gives back h bitwise. Since the parent's
 * bed is the mean of the children's, the second child's surface equals the parent's up to
 * rounding. Elsewhere (the shoreline) both children take the parent's depth: mass is exact, and
 * no child gets a negative depth. */
static void split_state(const double *sp, double *sa, double *sb, double ba, double bb,
                        double h_dry)
{
    double h = sp[SAMOA_H], eta = h + sp[SAMOA_B];
    int wet = h > h_dry && eta - ba > h_dry && eta - bb > h_dry;
    sa[SAMOA_H] = sb[SAMOA_H] = h;
    if (wet) {
        double *deep = ba <= bb ? sa : sb, *other = ba <= bb ? sb : sa;
        double d = fmin(fmax(eta - fmin(ba, bb), h), 2.0 * h);
        deep[SAMOA_H] = d;
        other[SAMOA_H] = 2.0 * h - d;
    }
    sa[SAMOA_HU] = sb[SAMOA_HU] = sp[SAMOA_HU];
    sa[SAMOA_HV] = sb[SAMOA_HV] = sp[SAMOA_HV];
    sa[SAMOA_B] = ba;
    sb[SAMOA_B] = bb;
}

/* One round of bisections of the leaves with split[i]; target follows the leaves. */
static int bisect_marked(samoa_mesh *m, const int8_t *split, int64_t count, int **target,
                         const samoa_amr_params *p)
{
    samoa_mesh out;
    int *tnew = malloc(((size_t)(m->n + count) + 1) * sizeof *tnew);
    if (!tnew || mesh_alloc(&out, m->n + count, m->half) != 0) {
        free(tnew);
        return -1;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < m->n; i++) {
        if (!split[i]) {
            tnew[j] = (*target)[i];
            leaf_copy(&out, j++, m, i);
            continue;
        }
        samoa_tri_bisect(&m->tri[i], &out.tri[j], &out.tri[j + 1]);
        for (int c = 0; c < 2; c++) {
            out.level[j + c] = m->level[i] + 1;
            out.path[j + c] = m->path[i] << 1 | (uint64_t)c;
            out.tag[j + c] = m->tag[i];
            tnew[j + c] = (*target)[i];
        }
        split_state(m->state + SAMOA_NSTATE * i, out.state + SAMOA_NSTATE * j,
                    out.state + SAMOA_NSTATE * (j + 1), bed_of(&out.tri[j], m->half, p),
                    bed_of(&out.tri[j + 1], m->half, p), p->h_dry);
        j += 2;
    }
    samoa_mesh_free(m);
    *m = out;
    free(*target);
    *target = tnew;
    return 0;
}

/* Picks this round's bisections: a leaf below its target level goes with its hypotenuse
 * neighbour when that neighbour has the same hypotenuse (or there is none: the boundary); else
 * the neighbour is coarser and must be bisected first, so its target rises. Returns the number
 * of leaves picked, -1 when none is pending, -2 when out of memory. */
static int64_t pick_round(const samoa_mesh *m, int *target, int8_t *split)
{
    int64_t n = m->n, count = 0, pending = 0;
    int64_t *nb = malloc((size_t)(3 * n + 1) * sizeof *nb);
    int8_t *nbe = malloc((size_t)(3 * n + 1));
    if (!nb || !nbe || samoa_tri_link(m->tri, n, nb, nbe) != 0) {
        free(nb);
        free(nbe);
        return -2;
    }
    memset(split, 0, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (m->level[i] >= target[i]) continue;
        pending++;
        int64_t j = nb[3 * i];
        if (j >= 0 && nbe[3 * i] != 0) {
            if (target[j] <= m->level[j]) target[j] = m->level[j] + 1;
            continue;
        }
        split[i] = 1;
        if (j >= 0) split[j] = 1;
    }
    for (int64_t i = 0; i < n; i++)
        count += split[i];
    free(nb);
    free(nbe);
    return pending ? count : -1;
}

int64_t samoa_mesh_refine(samoa_mesh *m, const int8_t *mark, const samoa_amr_params *p)
{
    int *target = malloc(((size_t)m->n + 1) * sizeof *target);
    if (!target) return -1;
    for (int64_t i = 0; i < m->n; i++)
        target[i] = mark[i] > 0 && m->level[i] < p->max_level ? m->level[i] + 1 : m->level[i];
    int64_t total = 0;
    for (;;) {
        int8_t *split = malloc((size_t)m->n + 1);
        int64_t count = split ? pick_round(m, target, split) : -2;
        int rc = count > 0 ? bisect_marked(m, split, count, &target, p) : 0;
        free(split);
        if (count == -1) break;
        if (count == -2 || rc != 0) {
            total = -1; /* rounds already done stay: the mesh is conforming after each */
            break;
        }
        total += count;
    }
    free(target);
    return total;
}

typedef struct vertex_ref {
    int64_t x, y, leaf;
    int pos;
} vertex_ref;

static int vertex_cmp(const void *pa, const void *pb)
{
    const vertex_ref *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    return (a->leaf > b->leaf) - (a->leaf < b->leaf);
}

static int is_first_child_of_pair(const samoa_mesh *m, int64_t i)
{
    return i + 1 < m->n && (m->path[i] & 1) == 0 && m->path[i + 1] == (m->path[i] | 1);
}

/* Whether the leaves around one vertex, v[0..k) sorted by leaf, can all merge: the vertex is
 * the newest of each (so they are the children of one or two bisected pairs, and nothing finer
 * touches it), they come as sibling pairs, and every one is marked above min_level. */
static int group_merges(const samoa_mesh *m, const vertex_ref *v, int64_t k, const int8_t *mark,
                        int min_level)
{
    if (k != 2 && k != 4) return 0;
    for (int64_t q = 0; q < k; q++) {
        int64_t i = v[q].leaf;
        if (v[q].pos != 2 || mark[i] >= 0 || m->level[i] <= min_level) return 0;
    }
    for (int64_t q = 0; q < k; q += 2)
        if (v[q + 1].leaf != v[q].leaf + 1 || !is_first_child_of_pair(m, v[q].leaf)) return 0;
    return 1;
}

/* Flags merge[i] for the first child of every pair that may merge; returns their number or -1. */
static int64_t pick_merges(const samoa_mesh *m, const int8_t *mark, int min_level, int8_t *merge)
{
    int64_t n = m->n, count = 0;
    vertex_ref *v = malloc((size_t)(3 * n + 1) * sizeof *v);
    if (!v) return -1;
    for (int64_t i = 0; i < n; i++)
        for (int p = 0; p < 3; p++)
            v[3 * i + p] = (vertex_ref){m->tri[i].x[p], m->tri[i].y[p], i, p};
    qsort(v, (size_t)(3 * n), sizeof *v, vertex_cmp);
    memset(merge, 0, (size_t)n);
    for (int64_t a = 0, b; a < 3 * n; a = b) {
        for (b = a + 1; b < 3 * n && v[b].x == v[a].x && v[b].y == v[a].y; b++) {
        }
        if (!group_merges(m, v + a, b - a, mark, min_level)) continue;
        for (int64_t q = a; q < b; q += 2) {
            merge[v[q].leaf] = 1;
            count++;
        }
    }
    free(v);
    return count;
}

/* The parent of a sibling pair (a, b) = (x0, x2, m), (x2, x1, m) is (x0, x1, x2). */
static samoa_tri parent_of(const samoa_tri *a, const samoa_tri *b)
{
    return (samoa_tri){{a->x[0], b->x[1], a->x[1]}, {a->y[0], b->y[1], a->y[1]}};
}

int64_t samoa_mesh_coarsen(samoa_mesh *m, const int8_t *mark, int8_t *marks_out,
                           const samoa_amr_params *p)
{
    int8_t *merge = malloc((size_t)m->n + 1);
    int64_t count = merge ? pick_merges(m, mark, p->min_level, merge) : -1;
    samoa_mesh out;
    if (count == 0 && marks_out) memcpy(marks_out, mark, (size_t)m->n);
    if (count <= 0 || mesh_alloc(&out, m->n - count, m->half) != 0) {
        free(merge);
        return count <= 0 ? count : -1;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < m->n; i++, j++) {
        if (marks_out) marks_out[j] = merge[i] ? 0 : mark[i];
        if (!merge[i]) {
            leaf_copy(&out, j, m, i);
            continue;
        }
        out.tri[j] = parent_of(&m->tri[i], &m->tri[i + 1]);
        out.level[j] = m->level[i] - 1;
        out.path[j] = m->path[i] >> 1;
        out.tag[j] = m->tag[i];
        const double *sa = m->state + SAMOA_NSTATE * i, *sb = sa + SAMOA_NSTATE;
        double *sp = out.state + SAMOA_NSTATE * j;
        for (int k = 0; k < 3; k++)
            sp[k] = 0.5 * (sa[k] + sb[k]);
        sp[SAMOA_B] = bed_of(&out.tri[j], m->half, p);
        i++; /* the second child */
    }
    free(merge);
    samoa_mesh_free(m);
    *m = out;
    return count;
}

int samoa_mesh_conforming(const samoa_mesh *m)
{
    int64_t n = m->n;
    int64_t *nb = malloc((size_t)(3 * n + 1) * sizeof *nb);
    int8_t *nbe = malloc((size_t)(3 * n + 1));
    int ok = nb && nbe && samoa_tri_link(m->tri, n, nb, nbe) == 0;
    for (int64_t k = 0; ok && k < 3 * n; k++)
        if (nb[k] < 0 && !samoa_tri_edge_on_boundary(&m->tri[k / 3], (int)(k % 3))) ok = 0;
    free(nb);
    free(nbe);
    return ok;
}

/* Whether cell c sits on the wet/dry front or on a steep free surface. */
static int needs_refinement(const samoa_grid *g, const double *state, int64_t c, double h_wet,
                            double slope)
{
    const samoa_cell *k = &g->cells[c];
    const double *s = state + SAMOA_NSTATE * c;
    int wet = s[SAMOA_H] > h_wet;
    for (int e = 0; e < 3; e++) {
        int64_t j = k->nb[e];
        if (j < 0) continue;
        const double *t = state + SAMOA_NSTATE * j;
        int wet_j = t[SAMOA_H] > h_wet;
        if (wet != wet_j) return 1;
        if (!wet) continue;
        double d = hypot(g->cells[j].cx - k->cx, g->cells[j].cy - k->cy);
        if (fabs(t[SAMOA_H] + t[SAMOA_B] - s[SAMOA_H] - s[SAMOA_B]) > slope * d) return 1;
    }
    return 0;
}

int samoa_amr_criterion(const samoa_grid *g, const double *state, double h_wet, double slope,
                        int buffer, int8_t *mark)
{
    int64_t n = g->ncells;
    int8_t *next = malloc((size_t)n + 1);
    if (!next) return -1;
    for (int64_t c = 0; c < n; c++)
        mark[c] = needs_refinement(g, state, c, h_wet, slope) ? 1 : -1;
    for (int layer = 0; layer < buffer; layer++) { /* the front moves until the next adaptation */
        for (int64_t c = 0; c < n; c++) {
            next[c] = mark[c];
            for (int e = 0; e < 3; e++)
                if (g->cells[c].nb[e] >= 0 && mark[g->cells[c].nb[e]] > 0) next[c] = 1;
        }
        memcpy(mark, next, (size_t)n);
    }
    free(next);
    return 0;
}
