#include "vtk.h"

#include <stdio.h>

int samoa_vtk_write(const char *path, const samoa_grid *g, double t, const double *h,
                    const double *b, const int *rank, const int *section)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int64_t n = g->ncells;
    fprintf(f, "# vtk DataFile Version 3.0\nsamoa_proxy oscillating lake t=%.9g\nASCII\n", t);
    fprintf(f, "DATASET UNSTRUCTURED_GRID\nPOINTS %lld double\n", (long long)(3 * n));
    for (int64_t c = 0; c < n; c++)
        for (int v = 0; v < 3; v++)
            fprintf(f, "%.9g %.9g 0\n", g->cells[c].x[v], g->cells[c].y[v]);
    fprintf(f, "CELLS %lld %lld\n", (long long)n, (long long)(4 * n));
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "3 %lld %lld %lld\n", (long long)(3 * c), (long long)(3 * c + 1),
                (long long)(3 * c + 2));
    fprintf(f, "CELL_TYPES %lld\n", (long long)n);
    for (int64_t c = 0; c < n; c++)
        fputs("5\n", f); /* VTK_TRIANGLE */
    fprintf(f, "CELL_DATA %lld\nSCALARS h double 1\nLOOKUP_TABLE default\n", (long long)n);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%.9g\n", h[c]);
    fputs("SCALARS surface double 1\nLOOKUP_TABLE default\n", f);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%.9g\n", h[c] + b[c]);
    fputs("SCALARS bed double 1\nLOOKUP_TABLE default\n", f);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%.9g\n", b[c]);
    fputs("SCALARS rank int 1\nLOOKUP_TABLE default\n", f);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%d\n", rank[c]);
    fputs("SCALARS section int 1\nLOOKUP_TABLE default\n", f);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%d\n", section[c]);
    return fclose(f) == 0 ? 0 : -1;
}
