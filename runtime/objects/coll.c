/* The objects layer's collective exchanges over its communicator, in one place: byte counts
 * first, then the bytes, every count checked against MPI's int. All run on the comm thread. */
#include "layer.h"

#include <limits.h>
#include <stdlib.h>

int tide_obj_mpi_count(size_t n, const char *what)
{
    if (n > INT_MAX)
        tide_fatal("objects: %s of %zu bytes for one rank exceeds MPI's int counts", what, n);
    return (int)n;
}

unsigned char *tide_objcoll_alltoallv(tide_objects_layer *L, const unsigned char *send,
                                      const int *scount, const int *sdispl, int *rcount,
                                      int *rdispl, size_t *rtotal, const char *what)
{
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, L->comm);
    size_t total = 0;
    for (int r = 0; r < L->size; r++) {
        rdispl[r] = tide_obj_mpi_count(total, what);
        total += (size_t)rcount[r];
    }
    unsigned char *recv = malloc(total + 1);
    TIDE_OBJ_NEED(recv);
    MPI_Alltoallv(send, scount, sdispl, MPI_BYTE, recv, rcount, rdispl, MPI_BYTE, L->comm);
    *rtotal = total;
    return recv;
}

void *tide_objcoll_allgatherv(tide_objects_layer *L, const void *mine, size_t len, int *counts,
                              int *displs, size_t *total_out, const char *what)
{
    int n = tide_obj_mpi_count(len, what);
    MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, L->comm);
    size_t total = 0;
    for (int r = 0; r < L->size; r++) {
        displs[r] = tide_obj_mpi_count(total, what);
        total += (size_t)counts[r];
    }
    unsigned char *all = malloc(total + 1);
    TIDE_OBJ_NEED(all);
    MPI_Allgatherv(mine, n, MPI_BYTE, all, counts, displs, MPI_BYTE, L->comm);
    *total_out = total;
    return all;
}
