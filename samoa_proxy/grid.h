/* The proxy's grid: a square cut into two right triangles, each bisected recursively `depth`
 * times (newest-vertex bisection), cells numbered in the order of a depth-first walk of the
 * bisection tree. With the children ordered as below that walk is the Sierpinski curve: each
 * cell shares an edge with the next, so a contiguous index range is a compact piece of the
 * domain, which is how sam(oa)^2 partitions its grid. Uniform depth keeps the mesh conforming;
 * every cell is congruent, with the same area and perimeter. */
#ifndef SAMOA_GRID_H
#define SAMOA_GRID_H

#include <stdint.h>

#define SAMOA_GRID_MAX_DEPTH 20

typedef struct samoa_cell {
    double x[3], y[3];   /* vertices: hypotenuse x[0]-x[1], right angle at x[2] */
    double cx, cy;       /* centroid */
    int64_t nb[3];       /* neighbour across edge e (vertices e, e+1 mod 3); -1 on the boundary */
    double nx[3], ny[3]; /* outward unit normal of edge e; exact negatives across a shared edge */
    double len[3];       /* edge lengths */
} samoa_cell;

typedef struct samoa_grid {
    int depth;
    double half; /* the square is [-half, half]^2 */
    int64_t ncells;
    double area, perimeter; /* of every cell */
    samoa_cell *cells;      /* in Sierpinski order */
} samoa_grid;

/* Builds the grid; 0 on success, -1 on a bad depth (0..SAMOA_GRID_MAX_DEPTH) or no memory. */
int samoa_grid_build(samoa_grid *g, int depth, double half);
void samoa_grid_free(samoa_grid *g);

#endif
