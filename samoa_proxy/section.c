#include "section.h"

#include <stdlib.h>

void samoa_range(int64_t total, int64_t parts, int64_t i, int64_t *first, int64_t *count)
{
    int64_t base = total / parts, extra = total % parts;
    *first = i * base + (i < extra ? i : extra);
    *count = base + (i < extra ? 1 : 0);
}

static int32_t local_index(samoa_section *s, int64_t global)
{
    if (global >= s->first && global < s->first + s->n) return (int32_t)(global - s->first);
    for (int32_t k = 0; k < s->nhalo; k++)
        if (s->halo[k] == global) return s->n + k;
    s->halo[s->nhalo] = global;
    return s->n + s->nhalo++;
}

int samoa_section_build(samoa_section *s, const samoa_grid *g, int64_t first, int32_t n)
{
    *s = (samoa_section){.first = first, .n = n};
    s->geom = malloc(((size_t)n + 1) * sizeof *s->geom);
    s->halo = malloc((3 * (size_t)n + 1) * sizeof *s->halo);
    if (!s->geom || !s->halo) {
        samoa_section_free(s);
        return -1;
    }
    for (int32_t c = 0; c < n; c++) {
        const samoa_cell *cell = &g->cells[first + c];
        for (int e = 0; e < 3; e++) {
            s->geom[c].nb[e] = cell->nb[e] < 0 ? -1 : local_index(s, cell->nb[e]);
            s->geom[c].nx[e] = cell->nx[e];
            s->geom[c].ny[e] = cell->ny[e];
            s->geom[c].len[e] = cell->len[e];
        }
        s->geom[c].area = cell->area;
    }
    return 0;
}

void samoa_section_free(samoa_section *s)
{
    free(s->geom);
    free(s->halo);
    s->geom = NULL;
    s->halo = NULL;
}

void samoa_section_gather(const samoa_section *s, const double *global, double *buf)
{
    for (int32_t c = 0; c < s->n; c++)
        for (int k = 0; k < SAMOA_NSTATE; k++)
            buf[SAMOA_NSTATE * c + k] = global[SAMOA_NSTATE * (s->first + c) + k];
    for (int32_t h = 0; h < s->nhalo; h++)
        for (int k = 0; k < SAMOA_NSTATE; k++)
            buf[SAMOA_NSTATE * (s->n + h) + k] = global[SAMOA_NSTATE * s->halo[h] + k];
}

void samoa_section_scatter(const samoa_section *s, const double *out, double *global)
{
    for (int32_t c = 0; c < s->n; c++)
        for (int k = 0; k < 3; k++)
            global[SAMOA_NSTATE * (s->first + c) + k] = out[3 * c + k];
}
