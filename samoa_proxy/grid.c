#include "grid.h"

#include <math.h>
#include <stdlib.h>

typedef struct edge_ref {
    int64_t ax, ay, bx, by; /* end points, the smaller first */
    int64_t tri;
    int edge;
} edge_ref;

void samoa_tri_roots(samoa_tri root[2])
{
    /* Corners A=(0,0) B=(L,0) C=(L,L) D=(0,L): (A,C,B) runs A->C, (C,A,D) runs C->A: a loop. */
    const int64_t L = SAMOA_LATTICE;
    root[0] = (samoa_tri){{0, L, L}, {0, L, 0}};
    root[1] = (samoa_tri){{L, 0, 0}, {L, 0, L}};
}

/* The hypotenuse x0-x1 is split at m; the children are (x0, x2, m) then (x2, x1, m): the first
 * enters where the parent enters (x0) and leaves at x2, where the second enters, and the second
 * leaves where the parent leaves (x1): the Sierpinski curve. */
void samoa_tri_bisect(const samoa_tri *t, samoa_tri *first, samoa_tri *second)
{
    int64_t mx = (t->x[0] + t->x[1]) / 2, my = (t->y[0] + t->y[1]) / 2;
    *first = (samoa_tri){{t->x[0], t->x[2], mx}, {t->y[0], t->y[2], my}};
    *second = (samoa_tri){{t->x[2], t->x[1], mx}, {t->y[2], t->y[1], my}};
}

static void bisect_to(const samoa_tri *t, int levels, samoa_tri *out, int64_t *next)
{
    if (levels == 0) {
        out[(*next)++] = *t;
        return;
    }
    samoa_tri a, b;
    samoa_tri_bisect(t, &a, &b);
    bisect_to(&a, levels - 1, out, next);
    bisect_to(&b, levels - 1, out, next);
}

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_ref *a = pa, *b = pb;
    int64_t ka[4] = {a->ax, a->ay, a->bx, a->by}, kb[4] = {b->ax, b->ay, b->bx, b->by};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static edge_ref edge_of(const samoa_tri *t, int64_t tri, int e)
{
    int f = (e + 1) % 3;
    edge_ref r = {t->x[e], t->y[e], t->x[f], t->y[f], tri, e};
    if (r.ax > r.bx || (r.ax == r.bx && r.ay > r.by)) {
        int64_t tx = r.ax, ty = r.ay;
        r.ax = r.bx, r.ay = r.by, r.bx = tx, r.by = ty;
    }
    return r;
}

int samoa_tri_link(const samoa_tri *tri, int64_t n, int64_t *nb, int8_t *nbe)
{
    edge_ref *edges = malloc((size_t)(3 * n + 1) * sizeof *edges);
    if (!edges) return -1;
    for (int64_t c = 0; c < n; c++)
        for (int e = 0; e < 3; e++) {
            edges[3 * c + e] = edge_of(&tri[c], c, e);
            nb[3 * c + e] = -1;
            nbe[3 * c + e] = -1;
        }
    qsort(edges, (size_t)(3 * n), sizeof *edges, edge_cmp);
    int rc = 0;
    for (int64_t k = 0; k + 1 < 3 * n; k++) {
        if (edge_cmp(&edges[k], &edges[k + 1]) != 0) continue;
        if (k + 2 < 3 * n && edge_cmp(&edges[k], &edges[k + 2]) == 0) rc = -1;
        const edge_ref *a = &edges[k], *b = &edges[k + 1];
        nb[3 * a->tri + a->edge] = b->tri, nbe[3 * a->tri + a->edge] = (int8_t)b->edge;
        nb[3 * b->tri + b->edge] = a->tri, nbe[3 * b->tri + b->edge] = (int8_t)a->edge;
        k++;
    }
    free(edges);
    return rc;
}

int samoa_tri_edge_on_boundary(const samoa_tri *t, int e)
{
    int f = (e + 1) % 3;
    const int64_t L = SAMOA_LATTICE;
    return (t->x[e] == t->x[f] && (t->x[e] == 0 || t->x[e] == L)) ||
           (t->y[e] == t->y[f] && (t->y[e] == 0 || t->y[e] == L));
}

void samoa_tri_coords(const samoa_tri *t, double half, double x[3], double y[3])
{
    double scale = 2.0 * half / (double)SAMOA_LATTICE;
    for (int v = 0; v < 3; v++) {
        x[v] = -half + scale * (double)t->x[v];
        y[v] = -half + scale * (double)t->y[v];
    }
}

static void set_geometry(samoa_cell *c, const samoa_tri *t, double half)
{
    samoa_tri_coords(t, half, c->x, c->y);
    c->cx = (c->x[0] + c->x[1] + c->x[2]) / 3.0;
    c->cy = (c->y[0] + c->y[1] + c->y[2]) / 3.0;
    double orient =
        (c->x[1] - c->x[0]) * (c->y[2] - c->y[0]) - (c->y[1] - c->y[0]) * (c->x[2] - c->x[0]);
    double sign = orient > 0 ? 1.0 : -1.0; /* outward is right of an edge in a ccw cell */
    for (int e = 0; e < 3; e++) {
        int f = (e + 1) % 3;
        double dx = c->x[f] - c->x[e], dy = c->y[f] - c->y[e];
        c->len[e] = hypot(dx, dy);
        c->nx[e] = sign * dy / c->len[e];
        c->ny[e] = -sign * dx / c->len[e];
    }
}

int samoa_grid_from_tris(samoa_grid *g, const samoa_tri *tri, const int *level, int64_t n,
                         double half)
{
    *g = (samoa_grid){.half = half, .ncells = n};
    g->cells = malloc((size_t)(n + 1) * sizeof *g->cells);
    int64_t *nb = malloc((size_t)(3 * n + 1) * sizeof *nb);
    int8_t *nbe = malloc((size_t)(3 * n + 1));
    int rc = g->cells && nb && nbe ? samoa_tri_link(tri, n, nb, nbe) : -1;
    for (int64_t c = 0; rc == 0 && c < n; c++) {
        set_geometry(&g->cells[c], &tri[c], half);
        g->cells[c].level = level[c];
        /* The root triangles have legs 2 half: each bisection halves the area exactly. */
        g->cells[c].area = ldexp(4.0 * half * half, -1 - level[c]);
        for (int e = 0; e < 3; e++)
            g->cells[c].nb[e] = nb[3 * c + e];
        if (level[c] > g->depth || c == 0) {
            g->depth = level[c];
            g->area = g->cells[c].area;
            g->perimeter = g->cells[c].len[0] + g->cells[c].len[1] + g->cells[c].len[2];
        }
    }
    free(nb);
    free(nbe);
    if (rc != 0) samoa_grid_free(g);
    return rc;
}

int samoa_grid_build(samoa_grid *g, int depth, double half)
{
    *g = (samoa_grid){0};
    if (depth < 0 || depth > SAMOA_GRID_MAX_DEPTH || !(half > 0)) return -1;
    int64_t n = INT64_C(2) << depth;
    samoa_tri *tri = malloc((size_t)n * sizeof *tri);
    int *level = malloc((size_t)n * sizeof *level);
    int rc = -1;
    if (tri && level) {
        samoa_tri root[2];
        samoa_tri_roots(root);
        int64_t next = 0;
        bisect_to(&root[0], depth, tri, &next);
        bisect_to(&root[1], depth, tri, &next);
        for (int64_t c = 0; c < n; c++)
            level[c] = depth;
        rc = samoa_grid_from_tris(g, tri, level, n, half);
    }
    free(tri);
    free(level);
    return rc;
}

void samoa_grid_free(samoa_grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->ncells = 0;
}
