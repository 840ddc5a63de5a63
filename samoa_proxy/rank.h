/* What one rank holds of the decomposition: its contiguous piece of the Sierpinski curve (the
 * cells whose owner is this rank), cut into sections, the task buffers, and the plan that moves
 * halo states between ranks with MPI. Rebuilt after every adaptation of the mesh. */
#ifndef SAMOA_RANK_H
#define SAMOA_RANK_H

#include "grid.h"
#include "section.h"
#include "swe.h"

#include <stdint.h>

/* Halo exchange plan: which of my cells each rank needs, and which of theirs I need. */
typedef struct samoa_halo_plan {
    int nranks;
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    int64_t *send_cells, *recv_cells;
    double *send_buf, *recv_buf;
} samoa_halo_plan;

typedef struct samoa_rank {
    int rank, nranks, nsec;
    int64_t first, count; /* my cells: first .. first + count - 1 */
    samoa_section *sec;   /* nsec sections of equal cell counts (some empty when count < nsec) */
    double **in;          /* per section: (n + nhalo) * SAMOA_NSTATE */
    double *out;          /* 3 per owned cell */
    samoa_swe_result *res;
    samoa_halo_plan hp;
} samoa_rank;

/* Builds rank `rank`'s part of grid g, given every cell's owner (contiguous runs along the
 * curve). Collective. 0, or -1 when out of memory or when my cells are not contiguous. */
int samoa_rank_build(samoa_rank *w, const samoa_grid *g, const int32_t *owner, int nsec, int rank,
                     int nranks);
void samoa_rank_free(samoa_rank *w);

/* Sends my cells' (h, hu, hv) to the ranks whose sections read them. Collective. */
void samoa_rank_halo_exchange(samoa_rank *w, double *state);

/* Gives every rank every cell's (h, hu, hv): the input of the adaptation. Collective. */
void samoa_rank_allgather(const samoa_rank *w, double *state);

/* Owners of equal contiguous ranges of n cells (sam(oa)^2's partition of the curve). */
void samoa_partition_equal(int32_t *owner, int64_t n, int nranks);

#endif
