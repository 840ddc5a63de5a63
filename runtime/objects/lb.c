/* One global rescheduling: every rank gathers the same loads and communication graph, runs the
 * same pure strategy (rescheduling) on the same bytes, and so obtains the same mapping without
 * broadcasting it; then each state buffer travels once, from its old owner to its new one. */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

/* Per-rank counts and displacements of the directory entries each rank owns: the order in
 * which every rank lists its own objects (ascending id) is the directory's order. */
static void owner_counts(const tide_objects_layer *L, int *counts, int *displs)
{
    for (int r = 0; r < L->size; r++)
        counts[r] = 0;
    for (int64_t i = 0; i < L->ndir; i++)
        counts[L->dir_owner[i]]++;
    for (int r = 0, d = 0; r < L->size; r++) {
        displs[r] = d;
        d += counts[r];
    }
}

static double *gather_loads(const tide_objects_layer *L)
{
    int *counts = malloc((size_t)L->size * sizeof *counts);
    int *displs = malloc((size_t)L->size * sizeof *displs);
    double *mine = malloc((size_t)(L->nloc + 1) * sizeof *mine);
    double *all = malloc((size_t)(L->ndir + 1) * sizeof *all);
    double *load = malloc((size_t)(L->ndir + 1) * sizeof *load);
    TIDE_OBJ_NEED(counts && displs && mine && all && load);
    for (int64_t i = 0; i < L->nloc; i++) {
        const tide_obj *o = L->loc[i];
        mine[i] = o->load_n ? o->load_sum / (double)o->load_n : 0.0;
    }
    owner_counts(L, counts, displs);
    MPI_Allgatherv(mine, (int)L->nloc, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, L->comm);
    for (int r = 0; r < L->size; r++)
        counts[r] = 0;
    for (int64_t i = 0; i < L->ndir; i++) {
        int r = L->dir_owner[i];
        load[i] = all[displs[r] + counts[r]++];
    }
    free(counts);
    free(displs);
    free(mine);
    free(all);
    return load;
}

typedef struct iedge {
    int64_t u, v;
    double vol;
} iedge;

static int cmp_iedge(const void *a, const void *b)
{
    const iedge *x = a, *y = b;
    if (x->u != y->u) return (x->u > y->u) - (x->u < y->u);
    return (x->v > y->v) - (x->v < y->v);
}

/* All ranks' message volumes as one graph over directory indices, per iteration of the
 * window (CSR arrays, all NULL when no object sent anything). */
static void gather_graph(tide_objects_layer *L, int64_t **off, int64_t **adj, double **vol)
{
    int np = L->size;
    int *counts = malloc((size_t)np * sizeof *counts),
        *displs = malloc((size_t)np * sizeof *displs);
    TIDE_OBJ_NEED(counts && displs);
    size_t total;
    tide_obj_edge *all = tide_objcoll_allgatherv(L, L->edges, (size_t)L->nedges * sizeof *all,
                                                 counts, displs, &total, "communication graph");
    free(counts);
    free(displs);
    int64_t m = (int64_t)(total / sizeof *all);
    *off = NULL;
    *adj = NULL;
    *vol = NULL;
    if (m == 0) {
        free(all);
        return;
    }

    iedge *e = malloc((size_t)m * sizeof *e);
    TIDE_OBJ_NEED(e);
    double per_iter = L->window > 0 ? 1.0 / (double)L->window : 1.0;
    for (int64_t i = 0; i < m; i++) {
        int64_t u = tide_objdir_find(L, all[i].from), v = tide_objdir_find(L, all[i].to);
        if (u < 0 || v < 0) tide_fatal("objects: communication graph names an unknown object");
        e[i] = (iedge){u, v, all[i].bytes * per_iter};
    }
    qsort(e, (size_t)m, sizeof *e, cmp_iedge);
    int64_t k = 0;
    for (int64_t i = 0; i < m; i++) {
        if (k > 0 && e[k - 1].u == e[i].u && e[k - 1].v == e[i].v)
            e[k - 1].vol += e[i].vol;
        else
            e[k++] = e[i];
    }
    *off = calloc((size_t)L->ndir + 1, sizeof **off);
    *adj = malloc((size_t)k * sizeof **adj);
    *vol = malloc((size_t)k * sizeof **vol);
    TIDE_OBJ_NEED(*off && *adj && *vol);
    for (int64_t i = 0; i < k; i++) {
        (*off)[e[i].u + 1]++;
        (*adj)[i] = e[i].v;
        (*vol)[i] = e[i].vol;
    }
    for (int64_t i = 0; i < L->ndir; i++)
        (*off)[i + 1] += (*off)[i];
    free(e);
    free(all);
}

/* Sends every local object whose new owner is another rank there, state and identity, and
 * adopts the objects arriving here. Inboxes are empty at this point (routing comes after). */
static void migrate(tide_objects_layer *L, const int32_t *new_owner)
{
    int np = L->size;
    size_t *need = calloc((size_t)np, sizeof *need);
    int *scount = malloc((size_t)np * sizeof *scount),
        *sdispl = malloc((size_t)np * sizeof *sdispl);
    int *rcount = malloc((size_t)np * sizeof *rcount),
        *rdispl = malloc((size_t)np * sizeof *rdispl);
    TIDE_OBJ_NEED(need && scount && sdispl && rcount && rdispl);
    for (int64_t i = 0; i < L->nloc; i++) {
        const tide_obj *o = L->loc[i];
        int dest = new_owner[tide_objdir_find(L, o->id)];
        if (o->ninbox)
            tide_fatal("objects: object %lld migrates with undelivered messages", (long long)o->id);
        if (dest != L->rank) need[dest] += tide_objmig_size(o);
    }
    size_t total = 0;
    for (int r = 0; r < np; r++) {
        scount[r] = tide_obj_mpi_count(need[r], "migration");
        sdispl[r] = tide_obj_mpi_count(total, "migration");
        need[r] = total;
        total += (size_t)scount[r];
    }
    unsigned char *send = calloc(total + 1, 1);
    TIDE_OBJ_NEED(send);
    int64_t kept = 0;
    for (int64_t i = 0; i < L->nloc; i++) {
        tide_obj *o = L->loc[i];
        int dest = new_owner[tide_objdir_find(L, o->id)];
        if (dest == L->rank) {
            L->loc[kept++] = o;
            continue;
        }
        need[dest] += tide_objmig_pack(o, send + need[dest]);
        tide_obj_free(o);
    }
    L->nloc = kept;
    size_t rtotal;
    unsigned char *recv =
        tide_objcoll_alltoallv(L, send, scount, sdispl, rcount, rdispl, &rtotal, "migration");
    free(send);

    tide_objmig_adopt(L, recv, rtotal, new_owner);
    free(recv);
    tide_objloc_sort(L);
    if (L->ndir) memcpy(L->dir_owner, new_owner, (size_t)L->ndir * sizeof *new_owner);
    free(need);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
}

/* This rank's part of the report: its objects' loads and new owners, before they migrate. */
static void keep_last(tide_objects_layer *L, const double *load, const int32_t *new_owner)
{
    double *w = malloc((size_t)(L->nloc + 1) * sizeof *w);
    int32_t *dest = malloc((size_t)(L->nloc + 1) * sizeof *dest);
    TIDE_OBJ_NEED(w && dest);
    for (int64_t i = 0; i < L->nloc; i++) {
        int64_t k = tide_objdir_find(L, L->loc[i]->id);
        w[i] = load[k];
        dest[i] = new_owner[k];
    }
    tide_objstats_keep_last(L, w, dest);
    free(w);
    free(dest);
}

void tide_objlb_run(tide_objects_layer *L, uint64_t seed)
{
    if (L->lb->protocol != TIDE_GLOBAL_CENTRAL) {
        tide_objdlb_run(L, seed);
        return;
    }
    double t0 = tide_now();
    double *load = gather_loads(L);
    int64_t *off, *adj;
    double *vol;
    gather_graph(L, &off, &adj, &vol);
    double *bytes = malloc((size_t)(L->ndir + 1) * sizeof *bytes);
    int32_t *new_owner = malloc((size_t)(L->ndir + 1) * sizeof *new_owner);
    TIDE_OBJ_NEED(bytes && new_owner);
    for (int64_t i = 0; i < L->ndir; i++)
        bytes[i] = (double)L->dir_size[i];
    tide_global_input in = {.np = L->size,
                            .nobj = L->ndir,
                            .load = load,
                            .owner = L->dir_owner,
                            .bytes = bytes,
                            .speed = NULL,
                            .comm_off = off,
                            .comm_adj = adj,
                            .comm_vol = vol};
    tide_global_params params = tide_rt_global->cfg.global;
    params.seed = seed;
    double t1 = tide_now();
    int rc = L->lb->plan(&in, &params, new_owner);
    double t2 = tide_now();
    if (rc != TIDE_PLAN_OK)
        tide_fatal("objects: strategy %s rejected its input (code %d)", L->lb->name, rc);
    tide_global_summary sum;
    if (tide_global_summarize(&in, new_owner, &sum) != TIDE_PLAN_OK)
        tide_fatal("objects: the mapping of strategy %s is invalid", L->lb->name);
    keep_last(L, load, new_owner);
    migrate(L, new_owner);
    double t3 = tide_now();

    double mine[3] = {t1 - t0, t2 - t1, t3 - t2}, most[3];
    MPI_Allreduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, L->comm);
    tide_objects_lb_record rec = {.iteration = L->iteration,
                                  .gather_s = most[0],
                                  .decision_s = most[1],
                                  .migrate_s = most[2],
                                  .moved = sum.moved,
                                  .bytes_moved = (int64_t)sum.bytes_moved,
                                  .max_before = sum.max_before,
                                  .avg = sum.avg,
                                  .max_after = sum.max_after,
                                  .comm_before = sum.comm_before,
                                  .comm_after = sum.comm_after};
    tide_objlb_finish(L, &rec);
    free(load);
    free(new_owner);
    free(bytes);
    free(off);
    free(adj);
    free(vol);
}
