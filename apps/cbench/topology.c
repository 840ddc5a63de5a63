/* gcomm neighbourhoods (topology.h). Distinct neighbours only: on a small torus (side 1 or 2)
 * t+1 and t-1 are the same object or t itself, and an object that appeared twice would receive
 * msgnum messages twice from the same sender, which no paper means. */
#include "topology.h"

#include <stdio.h>

/* The integer k-th root of n when it is exact, else -1. */
static int64_t exact_root(int64_t n, int k)
{
    for (int64_t s = 1;; s++) {
        int64_t v = k == 2 ? s * s : s * s * s;
        if (v == n) return s;
        if (v > n) return -1;
    }
}

int cbench_topology_check(cbench_gcomm g, int64_t n, char *err, size_t len)
{
    if (g == CBENCH_RING || exact_root(n, g == CBENCH_MESH2D ? 2 : 3) > 0) return 0;
    snprintf(err, len, "gcomm %s needs n to be a %s, got n = %lld",
             g == CBENCH_MESH2D ? "mesh2d" : "mesh3d",
             g == CBENCH_MESH2D ? "square (k*k)" : "cube (k*k*k)", (long long)n);
    return -1;
}

static int add(int64_t *out, int k, int64_t t, int64_t u)
{
    if (u == t) return k;
    for (int j = 0; j < k; j++)
        if (out[j] == u) return k;
    int j = k;
    while (j > 0 && out[j - 1] > u) {
        out[j] = out[j - 1];
        j--;
    }
    out[j] = u;
    return k + 1;
}

int cbench_neighbours(cbench_gcomm g, int64_t n, int64_t t, int64_t out[CBENCH_MAX_NEIGHBOURS])
{
    int k = 0;
    if (g == CBENCH_RING) {
        k = add(out, k, t, (t + 1) % n);
        return add(out, k, t, (t + n - 1) % n);
    }
    int dims = g == CBENCH_MESH2D ? 2 : 3;
    int64_t s = exact_root(n, dims);
    int64_t c[3] = {t % s, t / s % s, t / s / s}, stride[3] = {1, s, s * s};
    for (int d = 0; d < dims; d++) {
        int64_t plus = (c[d] + 1) % s, minus = (c[d] + s - 1) % s;
        k = add(out, k, t, t + (plus - c[d]) * stride[d]);
        k = add(out, k, t, t + (minus - c[d]) * stride[d]);
    }
    return k;
}
