/* The proxy's grid: a square cut into two right triangles, each bisected recursively
 * (newest-vertex bisection), cells numbered in the order of a depth-first walk of the bisection
 * tree. With the children ordered as below that walk is the Sierpinski curve: each cell shares
 * an edge with the next, so a contiguous index range is a compact piece of the domain, which is
 * how sam(oa)^2 partitions its grid. A grid is either uniform (every cell at one depth, all
 * congruent) or built from the leaves of an adapted tree (amr.h); it must be conforming. */
#ifndef SAMOA_GRID_H
#define SAMOA_GRID_H

#include <stdint.h>

#define SAMOA_GRID_MAX_DEPTH 20

/* Vertices live on an integer lattice while the tree is built, so that midpoints are exact and
 * a shared edge has bitwise the same end points in both cells; coordinates become doubles only
 * at the end, by one exact dyadic scaling. */
#define SAMOA_LATTICE (INT64_C(1) << 30)

/* A triangle of the tree: hypotenuse x[0]-x[1], right angle (the newest vertex) at x[2]. */
typedef struct samoa_tri {
    int64_t x[3], y[3];
} samoa_tri;

typedef struct samoa_cell {
    double x[3], y[3];   /* vertices: hypotenuse x[0]-x[1], right angle at x[2] */
    double cx, cy;       /* centroid */
    double area;         /* of this cell */
    int level;           /* bisections from the root triangle */
    int64_t nb[3];       /* neighbour across edge e (vertices e, e+1 mod 3); -1 on the boundary */
    double nx[3], ny[3]; /* outward unit normal of edge e; exact negatives across a shared edge */
    double len[3];       /* edge lengths */
} samoa_cell;

typedef struct samoa_grid {
    int depth;   /* the finest level */
    double half; /* the square is [-half, half]^2 */
    int64_t ncells;
    double area, perimeter; /* of a cell of the finest level (of every cell when uniform) */
    samoa_cell *cells;      /* in Sierpinski order */
} samoa_grid;

/* Builds the uniform grid; 0 on success, -1 on a bad depth (0..SAMOA_GRID_MAX_DEPTH) or no
 * memory. */
int samoa_grid_build(samoa_grid *g, int depth, double half);

/* Builds the grid of n leaves (Sierpinski order) at the given levels; 0, or -1 when out of
 * memory or when the leaves do not form a conforming mesh (an edge shared by three cells). */
int samoa_grid_from_tris(samoa_grid *g, const samoa_tri *tri, const int *level, int64_t n,
                         double half);
void samoa_grid_free(samoa_grid *g);

/* The two root triangles of the square, whose depth-first walks join into one loop. */
void samoa_tri_roots(samoa_tri root[2]);

/* Bisects t at the midpoint of its hypotenuse into the first and second child along the curve. */
void samoa_tri_bisect(const samoa_tri *t, samoa_tri *first, samoa_tri *second);

/* Vertex coordinates in [-half, half]^2. */
void samoa_tri_coords(const samoa_tri *t, double half, double x[3], double y[3]);

/* Pairs the triangles that share an edge: nb[3 i + e] is the triangle across edge e of triangle
 * i (-1 if none) and nbe[3 i + e] its edge there. 0, or -1 when out of memory or when an edge
 * belongs to three triangles. */
int samoa_tri_link(const samoa_tri *tri, int64_t n, int64_t *nb, int8_t *nbe);

/* 1 when edge e of t lies on the square's boundary. */
int samoa_tri_edge_on_boundary(const samoa_tri *t, int e);

#endif
