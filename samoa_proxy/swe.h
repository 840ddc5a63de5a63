/* Shallow-water numerics of the proxy: first-order finite volumes with the Rusanov flux and
 * Audusse's hydrostatic reconstruction (well balanced for the lake at rest, positive depths
 * under the CFL condition, so wet/dry fronts need no clipping that would lose mass). Pure C
 * over plain arrays: the same kernel updates one Tide task's section and, in the tests, the
 * whole grid. Thacker's oscillating lake gives the initial state and the exact solution. */
#ifndef SAMOA_SWE_H
#define SAMOA_SWE_H

#include <stdint.h>

/* State of a cell as the kernel reads it: depth, momentum, and the bed under the centroid. */
enum { SAMOA_H, SAMOA_HU, SAMOA_HV, SAMOA_B, SAMOA_NSTATE };

/* Cost classes. Dry: the cell and its neighbours hold at most h_dry water; every flux is zero
 * and the kernel skips the cell. Coast: wet next to dry or dry next to wet; runs the extra
 * inundation treatment. Wet: the rest. */
enum { SAMOA_DRY, SAMOA_WET, SAMOA_COAST, SAMOA_NCLASSES };

/* One cell of a section as a task sees it: neighbours are indices into the task's state array
 * (section cells first, then its halo), -1 on the domain boundary (a wall). */
typedef struct samoa_cell_geom {
    int32_t nb[3];
    double nx[3], ny[3], len[3];
    double area;
} samoa_cell_geom;

typedef struct samoa_swe_params {
    double g;
    double dt;
    double h_dry;   /* depths at or below it are dry */
    int coast_work; /* extra flux evaluations of the coastline treatment (compute cost only) */
} samoa_swe_params;

typedef struct samoa_swe_result {
    double max_speed;               /* max |u| + sqrt(g h) over the updated cells */
    int64_t counts[SAMOA_NCLASSES]; /* cells per class, classified on the old state */
} samoa_swe_result;

/* Class of cell `c` given the state array the geometry indexes. */
int samoa_swe_classify(const samoa_cell_geom *geom, const double *state, int32_t c, double h_dry);

/* Updates cells 0..n-1 of `state` by one explicit step into out (h, hu, hv per cell). The result
 * of a cell depends only on its own and its neighbours' old states, in a fixed order, so any
 * partition into sections gives bitwise the same grid. */
void samoa_swe_update(int32_t n, const samoa_cell_geom *geom, const double *state, double *out,
                      const samoa_swe_params *p, samoa_swe_result *res);

/* Wave speed |u| + sqrt(g h) of one cell state (h, hu, hv). */
double samoa_swe_speed(const double *hhuhv, double g, double h_dry);

/* Thacker's planar oscillating lake (SWASHES 4.2.2): bed b = h0 (r^2/a^2 - 1); the wet disc of
 * radius a circles the bowl's centre at distance eta with frequency w = sqrt(2 g h0) / a. */
typedef struct samoa_lake {
    double a, h0, eta, g;
} samoa_lake;

samoa_lake samoa_lake_default(void); /* a = 1, h0 = 0.1, eta = 0.5, g = 9.81 */
double samoa_lake_bed(const samoa_lake *l, double x, double y);
/* The bed's mean over a triangle: exact for the quadratic bed (the mean of its values at the
 * edge midpoints), so the means of a cell's two children average to the cell's own. */
double samoa_lake_bed_mean(const samoa_lake *l, const double x[3], const double y[3]);
/* The exact free surface h + b at (x, y, t) where wet (a plane, so its value at a centroid is
 * its mean over the cell). */
double samoa_lake_surface(const samoa_lake *l, double x, double y, double t);
double samoa_lake_omega(const samoa_lake *l);
/* Exact depth and velocity at (x, y, t); u = v = 0 where dry. */
void samoa_lake_exact(const samoa_lake *l, double x, double y, double t, double *h, double *u,
                      double *v);

#endif
