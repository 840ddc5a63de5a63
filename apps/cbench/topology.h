/* gcomm neighbourhoods over object ids: a ring (t-1, t+1 modulo n), a 2D torus (n = s*s) and a
 * 3D torus (n = s*s*s), object t at coordinates (t % s, t / s % s, t / s / s). Pure. */
#ifndef CBENCH_TOPOLOGY_H
#define CBENCH_TOPOLOGY_H

#include "params.h"

#include <stddef.h>
#include <stdint.h>

#define CBENCH_MAX_NEIGHBOURS 6

/* Checks that n fits the topology (a square for mesh2d, a cube for mesh3d). Returns 0, or -1
 * with "gcomm mesh2d needs n to be a square (k*k), got n = 10" in err. */
int cbench_topology_check(cbench_gcomm g, int64_t n, char *err, size_t len);

/* Writes the distinct neighbours of t other than t itself to out, ascending; returns how many
 * (0..6). The relation is symmetric: u is a neighbour of t exactly when t is one of u. Needs a
 * checked n. */
int cbench_neighbours(cbench_gcomm g, int64_t n, int64_t t, int64_t out[CBENCH_MAX_NEIGHBOURS]);

#endif
