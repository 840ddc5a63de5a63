#define _POSIX_C_SOURCE 200809L
#include "vtk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int samoa_vtk_check_dir(const char *dir, char *err, size_t errlen)
{
    char probe[4096];
    int n = snprintf(probe, sizeof probe, "%s/.samoa_proxy_probe_XXXXXX", dir);
    int fd = n > 0 && (size_t)n < sizeof probe ? mkstemp(probe) : -1;
    int e = fd >= 0 ? 0 : n > 0 && (size_t)n < sizeof probe ? errno : ENAMETOOLONG;
    if (fd >= 0) {
        if (write(fd, "#", 1) != 1) e = errno ? errno : EIO;
        if (close(fd) != 0 && !e) e = errno;
        unlink(probe);
    }
    if (!e) return 0;
    snprintf(err, errlen, "samoa_proxy: --vtk '%s' is unusable: cannot write a file in it: %s", dir,
             strerror(e));
    return 2;
}

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
    fputs("SCALARS level int 1\nLOOKUP_TABLE default\n", f);
    for (int64_t c = 0; c < n; c++)
        fprintf(f, "%d\n", g->cells[c].level);
    int bad = ferror(f); /* a write failed (errno tells why); fclose reports the last flush */
    return fclose(f) != 0 || bad ? -1 : 0;
}
