#include "grid.h"

#include <math.h>
#include <stdlib.h>

/* Vertices live on an integer lattice while the tree is built, so that midpoints are exact and
 * a shared edge has bitwise the same end points in both cells; coordinates become doubles only
 * at the end, by one exact dyadic scaling. */
#define LATTICE (INT64_C(1) << 30)

typedef struct lattice_tri {
    int64_t x[3], y[3];
} lattice_tri;

typedef struct edge_ref {
    int64_t ax, ay, bx, by; /* end points, the smaller first */
    int64_t cell;
    int edge;
} edge_ref;

/* Depth-first bisection. The hypotenuse x0-x1 is split at m; the children are (x0, x2, m) then
 * (x2, x1, m): the first enters where the parent enters (x0) and leaves at x2, where the second
 * enters, and the second leaves where the parent leaves (x1): the Sierpinski curve. */
static void bisect(const lattice_tri *t, int levels, lattice_tri *out, int64_t *next)
{
    if (levels == 0) {
        out[(*next)++] = *t;
        return;
    }
    int64_t mx = (t->x[0] + t->x[1]) / 2, my = (t->y[0] + t->y[1]) / 2;
    lattice_tri a = {{t->x[0], t->x[2], mx}, {t->y[0], t->y[2], my}};
    lattice_tri b = {{t->x[2], t->x[1], mx}, {t->y[2], t->y[1], my}};
    bisect(&a, levels - 1, out, next);
    bisect(&b, levels - 1, out, next);
}

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_ref *a = pa, *b = pb;
    int64_t ka[4] = {a->ax, a->ay, a->bx, a->by}, kb[4] = {b->ax, b->ay, b->bx, b->by};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static edge_ref edge_of(const lattice_tri *t, int64_t cell, int e)
{
    int f = (e + 1) % 3;
    edge_ref r = {t->x[e], t->y[e], t->x[f], t->y[f], cell, e};
    if (r.ax > r.bx || (r.ax == r.bx && r.ay > r.by)) {
        int64_t tx = r.ax, ty = r.ay;
        r.ax = r.bx, r.ay = r.by, r.bx = tx, r.by = ty;
    }
    return r;
}

/* Pairs the cells that share an edge; a conforming mesh has every edge once or twice. */
static int link_neighbours(samoa_grid *g, const lattice_tri *tri)
{
    int64_t n = g->ncells;
    edge_ref *edges = malloc((size_t)(3 * n) * sizeof *edges);
    if (!edges) return -1;
    for (int64_t c = 0; c < n; c++)
        for (int e = 0; e < 3; e++) {
            edges[3 * c + e] = edge_of(&tri[c], c, e);
            g->cells[c].nb[e] = -1;
        }
    qsort(edges, (size_t)(3 * n), sizeof *edges, edge_cmp);
    int rc = 0;
    for (int64_t k = 0; k + 1 < 3 * n; k++) {
        if (edge_cmp(&edges[k], &edges[k + 1]) != 0) continue;
        if (k + 2 < 3 * n && edge_cmp(&edges[k], &edges[k + 2]) == 0) rc = -1;
        g->cells[edges[k].cell].nb[edges[k].edge] = edges[k + 1].cell;
        g->cells[edges[k + 1].cell].nb[edges[k + 1].edge] = edges[k].cell;
        k++;
    }
    free(edges);
    return rc;
}

static void set_geometry(samoa_cell *c, const lattice_tri *t, double half)
{
    double scale = 2.0 * half / (double)LATTICE;
    for (int v = 0; v < 3; v++) {
        c->x[v] = -half + scale * (double)t->x[v];
        c->y[v] = -half + scale * (double)t->y[v];
    }
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

int samoa_grid_build(samoa_grid *g, int depth, double half)
{
    *g = (samoa_grid){0};
    if (depth < 0 || depth > SAMOA_GRID_MAX_DEPTH || !(half > 0)) return -1;
    int64_t n = INT64_C(2) << depth;
    lattice_tri *tri = malloc((size_t)n * sizeof *tri);
    g->cells = malloc((size_t)n * sizeof *g->cells);
    if (!tri || !g->cells) {
        free(tri);
        samoa_grid_free(g);
        return -1;
    }
    /* Corners A=(0,0) B=(L,0) C=(L,L) D=(0,L): (A,C,B) runs A->C, (C,A,D) runs C->A: a loop. */
    lattice_tri first = {{0, LATTICE, LATTICE}, {0, LATTICE, 0}};
    lattice_tri second = {{LATTICE, 0, 0}, {LATTICE, 0, LATTICE}};
    int64_t next = 0;
    bisect(&first, depth, tri, &next);
    bisect(&second, depth, tri, &next);
    g->depth = depth;
    g->half = half;
    g->ncells = n;
    for (int64_t c = 0; c < n; c++)
        set_geometry(&g->cells[c], &tri[c], half);
    int rc = link_neighbours(g, tri);
    free(tri);
    if (rc != 0) {
        samoa_grid_free(g);
        return -1;
    }
    g->area = 4.0 * half * half / (double)n;
    g->perimeter = g->cells[0].len[0] + g->cells[0].len[1] + g->cells[0].len[2];
    return 0;
}

void samoa_grid_free(samoa_grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->ncells = 0;
}
