#include "rank.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

void samoa_partition_equal(int32_t *owner, int64_t n, int nranks)
{
    for (int r = 0; r < nranks; r++) {
        int64_t first, count;
        samoa_range(n, nranks, r, &first, &count);
        for (int64_t c = first; c < first + count; c++)
            owner[c] = r;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int halo_plan_build(samoa_halo_plan *h, const samoa_section *sec, int nsec,
                           const int32_t *owner, int rank, int nranks)
{
    *h = (samoa_halo_plan){.nranks = nranks};
    int64_t total = 0;
    for (int k = 0; k < nsec; k++)
        total += sec[k].nhalo;
    int64_t *need = malloc(((size_t)total + 1) * sizeof *need);
    h->send_counts = calloc(4 * (size_t)nranks, sizeof(int));
    if (!need || !h->send_counts) {
        free(need);
        return -1;
    }
    h->send_displs = h->send_counts + nranks;
    h->recv_counts = h->send_displs + nranks;
    h->recv_displs = h->recv_counts + nranks;
    int64_t m = 0;
    for (int k = 0; k < nsec; k++)
        for (int32_t j = 0; j < sec[k].nhalo; j++)
            if (owner[sec[k].halo[j]] != rank) need[m++] = sec[k].halo[j];
    qsort(need, (size_t)m, sizeof *need, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < m; i++)
        if (u == 0 || need[u - 1] != need[i]) need[u++] = need[i];
    for (int64_t i = 0; i < u; i++)
        h->recv_counts[owner[need[i]]]++;
    MPI_Alltoall(h->recv_counts, 1, MPI_INT, h->send_counts, 1, MPI_INT, MPI_COMM_WORLD);
    int ns = 0, nr = 0;
    for (int r = 0; r < nranks; r++) {
        h->send_displs[r] = ns;
        h->recv_displs[r] = nr;
        ns += h->send_counts[r];
        nr += h->recv_counts[r];
    }
    h->recv_cells = need;
    h->send_cells = malloc(((size_t)ns + 1) * sizeof *h->send_cells);
    h->send_buf = malloc(((size_t)ns + 1) * 3 * sizeof(double));
    h->recv_buf = malloc(((size_t)nr + 1) * 3 * sizeof(double));
    if (!h->send_cells || !h->send_buf || !h->recv_buf) return -1;
    MPI_Alltoallv(h->recv_cells, h->recv_counts, h->recv_displs, MPI_INT64_T, h->send_cells,
                  h->send_counts, h->send_displs, MPI_INT64_T, MPI_COMM_WORLD);
    return 0;
}

static void halo_plan_free(samoa_halo_plan *h)
{
    free(h->send_counts);
    free(h->send_cells);
    free(h->recv_cells);
    free(h->send_buf);
    free(h->recv_buf);
    *h = (samoa_halo_plan){0};
}

void samoa_rank_halo_exchange(samoa_rank *w, double *state)
{
    samoa_halo_plan *h = &w->hp;
    int n = h->nranks, ns = h->send_displs[n - 1] + h->send_counts[n - 1];
    int nr = h->recv_displs[n - 1] + h->recv_counts[n - 1];
    for (int i = 0; i < ns; i++)
        memcpy(h->send_buf + 3 * i, state + SAMOA_NSTATE * h->send_cells[i], 3 * sizeof(double));
    int sc[n], sd[n], rc[n], rd[n]; /* in doubles */
    for (int r = 0; r < n; r++) {
        sc[r] = 3 * h->send_counts[r], sd[r] = 3 * h->send_displs[r];
        rc[r] = 3 * h->recv_counts[r], rd[r] = 3 * h->recv_displs[r];
    }
    MPI_Alltoallv(h->send_buf, sc, sd, MPI_DOUBLE, h->recv_buf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < nr; i++)
        memcpy(state + SAMOA_NSTATE * h->recv_cells[i], h->recv_buf + 3 * i, 3 * sizeof(double));
}

void samoa_rank_allgather(const samoa_rank *w, double *state)
{
    int n = w->nranks, counts[n], displs[n], mine = (int)(w->count * SAMOA_NSTATE);
    int64_t range[2] = {w->first, w->count}, all[2 * n];
    MPI_Allgather(range, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++) {
        displs[r] = (int)(all[2 * r] * SAMOA_NSTATE);
        counts[r] = (int)(all[2 * r + 1] * SAMOA_NSTATE);
    }
    MPI_Allgatherv(MPI_IN_PLACE, mine, MPI_DOUBLE, state, counts, displs, MPI_DOUBLE,
                   MPI_COMM_WORLD);
}

/* My contiguous run of cells; -1 when my cells are not one run. */
static int my_range(const int32_t *owner, int64_t n, int rank, int64_t *first, int64_t *count)
{
    int64_t c = 0;
    while (c < n && owner[c] != rank)
        c++;
    *first = c;
    while (c < n && owner[c] == rank)
        c++;
    *count = c - *first;
    while (c < n && owner[c] != rank)
        c++;
    return c < n ? -1 : 0;
}

int samoa_rank_build(samoa_rank *w, const samoa_grid *g, const int32_t *owner, int nsec, int rank,
                     int nranks)
{
    *w = (samoa_rank){.rank = rank, .nranks = nranks, .nsec = nsec};
    int ok = my_range(owner, g->ncells, rank, &w->first, &w->count) == 0;
    w->sec = calloc((size_t)nsec, sizeof *w->sec);
    w->in = calloc((size_t)nsec, sizeof *w->in);
    w->res = calloc((size_t)nsec, sizeof *w->res);
    w->out = malloc(((size_t)w->count + 1) * 3 * sizeof *w->out);
    ok = ok && w->sec && w->in && w->res && w->out;
    for (int k = 0; ok && k < nsec; k++) {
        int64_t sf, sc;
        samoa_range(w->count, nsec, k, &sf, &sc);
        ok = samoa_section_build(&w->sec[k], g, w->first + sf, (int32_t)sc) == 0;
        if (ok)
            w->in[k] = malloc(((size_t)sc + w->sec[k].nhalo + 1) * SAMOA_NSTATE * sizeof(double));
        ok = ok && w->in[k];
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) all_ok = halo_plan_build(&w->hp, w->sec, nsec, owner, rank, nranks) == 0;
    return all_ok ? 0 : -1;
}

void samoa_rank_free(samoa_rank *w)
{
    halo_plan_free(&w->hp);
    for (int k = 0; w->sec && k < w->nsec; k++) {
        samoa_section_free(&w->sec[k]);
        if (w->in) free(w->in[k]);
    }
    free(w->sec);
    free(w->in);
    free(w->res);
    free(w->out);
    *w = (samoa_rank){0};
}
