/* Decomposition: ranks own equal contiguous ranges of the Sierpinski order, each range is cut
 * into sections, and a section is what one Tide task updates. A section carries its geometry in
 * local numbering (its cells, then the halo cells it reads), so a task is self-contained and can
 * run on any rank. */
#ifndef SAMOA_SECTION_H
#define SAMOA_SECTION_H

#include "grid.h"
#include "swe.h"

#include <stdint.h>

typedef struct samoa_section {
    int64_t first;         /* global index of its first cell */
    int32_t n;             /* cells it updates: first .. first + n - 1 */
    int32_t nhalo;         /* cells outside it that it reads */
    int64_t *halo;         /* their global indices, in first-use order */
    samoa_cell_geom *geom; /* n entries, neighbours in local numbering */
} samoa_section;

/* Part `i` of `parts` equal contiguous parts of [0, total): sizes differ by at most one. */
void samoa_range(int64_t total, int64_t parts, int64_t i, int64_t *first, int64_t *count);

/* Builds the section of cells [first, first + n); 0 or -1 when out of memory. */
int samoa_section_build(samoa_section *s, const samoa_grid *g, int64_t first, int32_t n);
void samoa_section_free(samoa_section *s);

/* Copies the section's and its halo's states out of a global state array (SAMOA_NSTATE doubles
 * per cell) into buf, (n + nhalo) * SAMOA_NSTATE doubles, in local order. */
void samoa_section_gather(const samoa_section *s, const double *global, double *buf);

/* Writes a task's output (h, hu, hv per section cell) back into the global state array. */
void samoa_section_scatter(const samoa_section *s, const double *out, double *global);

#endif
