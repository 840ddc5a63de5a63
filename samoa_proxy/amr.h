/* Adaptive mesh refinement of the proxy's grid: the leaves of the Sierpinski-ordered bisection
 * tree (grid.h) with their states, refined by conforming newest-vertex bisection and coarsened by
 * merging sibling pairs, the Sierpinski order kept (children replace their parent in place, a
 * parent replaces its children). Pure C over plain arrays: no MPI, no Tide; every rank runs it on
 * the same input and gets the same mesh. docs/samoa_proxy.md explains the transfer of states. */
#ifndef SAMOA_AMR_H
#define SAMOA_AMR_H

#include "grid.h"
#include "swe.h"

#include <stdint.h>

typedef struct samoa_mesh {
    int64_t n;      /* leaves */
    double half;    /* the square is [-half, half]^2 */
    samoa_tri *tri; /* leaves in Sierpinski order */
    int *level;     /* bisections from the root */
    uint64_t *path; /* a leading 1, the root, then one bit per bisection (0 first child) */
    int32_t *tag;   /* carried along: children take their parent's, a parent its first child's */
    double *state;  /* SAMOA_NSTATE per leaf */
} samoa_mesh;

/* The bed's mean over a cell (b of a new cell is computed, never transferred). */
typedef double (*samoa_bed_fn)(const void *ctx, const double x[3], const double y[3]);

typedef struct samoa_amr_params {
    int min_level, max_level; /* coarsening stops at min, refinement at max */
    double h_dry;             /* depths at or below it are dry */
    samoa_bed_fn bed;
    const void *bed_ctx;
} samoa_amr_params;

/* The uniform mesh at `depth`, states zero except the bed; 0 or -1 (bad depth, no memory). */
int samoa_mesh_uniform(samoa_mesh *m, int depth, double half, const samoa_amr_params *p);
void samoa_mesh_free(samoa_mesh *m);

/* Bisects every leaf with mark[i] > 0 below max_level, and whatever else conformity needs (the
 * closure: a leaf is bisected together with the neighbour across its hypotenuse when that
 * neighbour has the same hypotenuse, else that coarser neighbour is bisected first). Children get
 * the parent's momentum; their depth keeps the parent's free surface h + b where the parent and
 * both children are wet, else the parent's depth. Returns the number of bisections, or -1 when
 * out of memory (the mesh is unchanged then). */
int64_t samoa_mesh_refine(samoa_mesh *m, const int8_t *mark, const samoa_amr_params *p);

/* Merges sibling pairs whose leaves both have mark[i] < 0, above min_level, where conformity
 * allows (every leaf around the pair's newest vertex is a marked child of a pair being merged).
 * The parent gets the children's mean (h, hu, hv): mass is conserved. One level per call.
 * marks_out, when not NULL, receives the marks of the new leaves (0 for a merged parent).
 * Returns the number of merges, or -1 when out of memory (the mesh is unchanged then). */
int64_t samoa_mesh_coarsen(samoa_mesh *m, const int8_t *mark, int8_t *marks_out,
                           const samoa_amr_params *p);

/* 1 when no leaf has a hanging node: every edge is shared by exactly two leaves or lies on the
 * square's boundary. */
int samoa_mesh_conforming(const samoa_mesh *m);

/* The refinement criterion (docs/samoa_proxy.md): +1 for a leaf within `buffer` neighbour layers
 * of the front between water (h > h_wet) and land, or of a free-surface slope above `slope`
 * between two leaves with water; -1 for every other leaf; g is the grid of the leaves. h_wet lies
 * above the dry threshold so that the thin film a first-order scheme spreads over the land does
 * not count as water. 0, or -1 when out of memory. */
int samoa_amr_criterion(const samoa_grid *g, const double *state, double h_wet, double slope,
                        int buffer, int8_t *mark);

#endif
