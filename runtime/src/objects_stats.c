/* Statistics of the objects layer: per-iteration rank loads, every rescheduling, and the
 * TIDE_OBJECTS_STATS JSON document (schema in docs/objects.md). */
#include "objects_internal.h"

#include <limits.h>
#include <stdlib.h>

void tide_objstats_iteration(tide_objects_layer *L, double load_self, int64_t delivered,
                             int64_t bytes)
{
    /* Reductions, not a gather: no rank needs the other ranks' loads. */
    double mine[3] = {load_self, (double)delivered, (double)bytes}, sum[3], max;
    MPI_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, L->comm);
    MPI_Allreduce(&load_self, &max, 1, MPI_DOUBLE, MPI_MAX, L->comm);
    int64_t msgs = (int64_t)sum[1], msg_bytes = (int64_t)sum[2];
    tide_objects_stats *st = &L->st;
    st->load_max = max;
    st->load_avg = sum[0] / L->size;
    st->load_self = load_self;
    st->messages += msgs;
    st->message_bytes += msg_bytes;
    int64_t n = st->iterations;
    TIDE_OBJ_NEED(
        tide_obj_grow((void **)&L->iter_load, &L->iter_cap, 2 * (n + 1), sizeof *L->iter_load));
    L->iter_load[2 * n] = max;
    L->iter_load[2 * n + 1] = st->load_avg;
    st->iterations++;
}

static void write_record(FILE *f, const tide_objects_lb_record *r)
{
    fprintf(f,
            "{\"iteration\": %lld, \"decision_s\": %.9g, \"gather_s\": %.9g, \"migrate_s\": %.9g, "
            "\"moved\": %lld, \"bytes_moved\": %lld, \"max_before\": %.9g, \"max_after\": %.9g, "
            "\"avg\": %.9g, \"comm_before\": %.9g, \"comm_after\": %.9g, \"gossip_rounds\": %lld, "
            "\"gossip_messages\": %lld, \"handshake_rounds\": %lld, \"proposals\": %lld, "
            "\"refused\": %lld, \"unplaced\": %lld}",
            (long long)r->iteration, r->decision_s, r->gather_s, r->migrate_s, (long long)r->moved,
            (long long)r->bytes_moved, r->max_before, r->max_after, r->avg, r->comm_before,
            r->comm_after, (long long)r->gossip_rounds, (long long)r->gossip_messages,
            (long long)r->handshake_rounds, (long long)r->proposals, (long long)r->refused,
            (long long)r->unplaced);
}

int tide_objstats_write_json(const tide_objects_layer *L, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return tide_fail(TIDE_ERR_INVALID, "TIDE_OBJECTS_STATS: cannot write '%s'", path);
    const tide_objects_stats *st = &L->st;
    fprintf(f, "{\n\"schema\": \"tide-objects-1\",\n");
    fprintf(f, "\"config\": {\"strategy\": \"%s\", \"period\": %d, \"ranks\": %d},\n", L->lb->name,
            L->period, L->size);
    fprintf(f,
            "\"summary\": {\"iterations\": %lld, \"objects\": %lld, \"reschedules\": %lld, "
            "\"decision_s_total\": %.9g, \"gather_s_total\": %.9g, \"migrate_s_total\": %.9g, "
            "\"moved_total\": %lld, \"bytes_moved_total\": %lld, \"messages\": %lld, "
            "\"message_bytes\": %lld},\n",
            (long long)st->iterations, (long long)L->ndir, (long long)st->reschedules,
            st->decision_s_total, st->gather_s_total, st->migrate_s_total,
            (long long)st->moved_total, (long long)st->bytes_moved_total, (long long)st->messages,
            (long long)st->message_bytes);
    fprintf(f, "\"iterations\": {\"load_max\": [");
    for (int64_t i = 0; i < st->iterations; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", L->iter_load[2 * i]);
    fprintf(f, "], \"load_avg\": [");
    for (int64_t i = 0; i < st->iterations; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", L->iter_load[2 * i + 1]);
    fprintf(f, "]},\n\"reschedules\": [");
    for (int64_t i = 0; i < L->nhist; i++) {
        fprintf(f, "%s\n  ", i ? "," : "");
        write_record(f, &L->hist[i]);
    }
    fprintf(f, "],\n\"last_reschedule\": {\"objects\": [");
    for (int64_t i = 0; i < (L->nhist ? L->last_nobj : 0); i++)
        fprintf(f, "%s\n  {\"id\": %lld, \"load\": %.9g, \"owner\": %d, \"new_owner\": %d}",
                i ? "," : "", (long long)L->last_id[i], L->last_load[i], L->last_owner[i],
                L->last_new[i]);
    fprintf(f, "],\n  \"comm\": [");
    for (int64_t i = 0; i < (L->nhist ? L->last_nedges : 0); i++)
        fprintf(f, "%s\n  {\"from\": %lld, \"to\": %lld, \"bytes\": %.9g}", i ? "," : "",
                (long long)L->last_edges[i].from, (long long)L->last_edges[i].to,
                L->last_edges[i].bytes);
    fprintf(f, "]}\n}\n");
    if (fclose(f) != 0)
        return tide_fail(TIDE_ERR_INVALID, "TIDE_OBJECTS_STATS: error writing '%s'", path);
    return TIDE_OK;
}

void tide_objstats_print(const tide_objects_layer *L, FILE *out)
{
    const tide_objects_stats *st = &L->st;
    fprintf(out,
            "tide objects: %lld objects, %lld iterations, strategy %s every %d, %lld "
            "reschedulings (decision %.6f s, gather %.6f s, migration %.6f s in total), %lld "
            "objects / %lld bytes migrated, %lld messages / %lld bytes delivered\n",
            (long long)L->ndir, (long long)st->iterations, L->lb->name, L->period,
            (long long)st->reschedules, st->decision_s_total, st->gather_s_total,
            st->migrate_s_total, (long long)st->moved_total, (long long)st->bytes_moved_total,
            (long long)st->messages, (long long)st->message_bytes);
    if (st->iterations)
        fprintf(out, "tide objects: last iteration load max %.6f s, avg %.6f s (R_imb %.3f)\n",
                st->load_max, st->load_avg,
                st->load_avg > 0 ? st->load_max / st->load_avg - 1 : 0.0);
}

typedef struct last_obj {
    int64_t id;
    double load;
    int32_t owner, new_owner;
} last_obj;

static int cmp_last_obj(const void *a, const void *b)
{
    int64_t x = ((const last_obj *)a)->id, y = ((const last_obj *)b)->id;
    return (x > y) - (x < y);
}

/* Gathers n elements of size bytes from every rank into a fresh array on rank 0. */
static void *gather_to_root(const tide_objects_layer *L, const void *mine, int64_t n, size_t size,
                            int64_t *total)
{
    if ((size_t)n * size > INT_MAX) tide_fatal("objects: report part too large to gather");
    int len = (int)((size_t)n * size);
    int *counts = NULL, *displs = NULL;
    if (L->rank == 0) {
        counts = malloc((size_t)L->size * sizeof *counts);
        displs = malloc((size_t)L->size * sizeof *displs);
        TIDE_OBJ_NEED(counts && displs);
    }
    MPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, L->comm);
    size_t sum = 0;
    if (L->rank == 0)
        for (int r = 0; r < L->size; r++) {
            displs[r] = (int)sum;
            sum += (size_t)counts[r];
            if (sum > INT_MAX) tide_fatal("objects: report too large to gather");
        }
    unsigned char *all = L->rank == 0 ? malloc(sum + 1) : NULL;
    TIDE_OBJ_NEED(L->rank != 0 || all);
    MPI_Gatherv(mine, len, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, L->comm);
    free(counts);
    free(displs);
    *total = (int64_t)(sum / size);
    return all;
}

void tide_objstats_gather_last(tide_objects_layer *L)
{
    if (!L->last_local || !L->nhist) return; /* alike on every rank: same strategy, same history */
    last_obj *mine = malloc((size_t)(L->last_nobj + 1) * sizeof *mine);
    TIDE_OBJ_NEED(mine);
    for (int64_t i = 0; i < L->last_nobj; i++)
        mine[i] = (last_obj){L->last_id[i], L->last_load[i], L->last_owner[i], L->last_new[i]};
    int64_t nobj, nedges;
    last_obj *objs = gather_to_root(L, mine, L->last_nobj, sizeof *mine, &nobj);
    tide_obj_edge *edges =
        gather_to_root(L, L->last_edges, L->last_nedges, sizeof *L->last_edges, &nedges);
    free(mine);
    free(L->last_edges);
    L->last_edges = edges;
    L->last_nedges = L->rank == 0 ? nedges : 0;
    L->last_local = false;
    if (L->rank != 0) {
        L->last_nobj = 0;
        return;
    }
    qsort(objs, (size_t)nobj, sizeof *objs, cmp_last_obj);
    int64_t *id = realloc(L->last_id, (size_t)(nobj + 1) * sizeof *id);
    double *load = realloc(L->last_load, (size_t)(nobj + 1) * sizeof *load);
    TIDE_OBJ_NEED(id && load);
    L->last_id = id;
    L->last_load = load;
    int32_t *owner = realloc(L->last_owner, (size_t)(nobj + 1) * sizeof *owner);
    TIDE_OBJ_NEED(owner);
    L->last_owner = owner;
    int32_t *nw = realloc(L->last_new, (size_t)(nobj + 1) * sizeof *nw);
    TIDE_OBJ_NEED(nw);
    L->last_new = nw;
    for (int64_t i = 0; i < nobj; i++) {
        id[i] = objs[i].id;
        load[i] = objs[i].load;
        owner[i] = objs[i].owner;
        nw[i] = objs[i].new_owner;
    }
    L->last_nobj = nobj;
    free(objs);
}

void tide_objstats_free_last(tide_objects_layer *L)
{
    free(L->last_id);
    free(L->last_load);
    free(L->last_owner);
    free(L->last_new);
    free(L->last_edges);
    L->last_id = NULL;
    L->last_load = NULL;
    L->last_owner = NULL;
    L->last_new = NULL;
    L->last_edges = NULL;
    L->last_nobj = L->last_nedges = 0;
}
