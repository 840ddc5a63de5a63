/* Statistics of the objects layer: per-iteration rank loads, every rescheduling, and the
 * TIDE_OBJECTS_STATS JSON document (schema in docs/objects.md). */
#include "layer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

void tide_objstats_write_json(const tide_objects_layer *L, FILE *f)
{
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
                i ? "," : "", (long long)L->last_obj[i].id, L->last_obj[i].load,
                L->last_obj[i].owner, L->last_obj[i].new_owner);
    fprintf(f, "],\n  \"comm\": [");
    for (int64_t i = 0; i < (L->nhist ? L->last_nedges : 0); i++)
        fprintf(f, "%s\n  {\"from\": %lld, \"to\": %lld, \"bytes\": %.9g}", i ? "," : "",
                (long long)L->last_edges[i].from, (long long)L->last_edges[i].to,
                L->last_edges[i].bytes);
    fprintf(f, "]}\n}\n");
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

void tide_objstats_keep_last(tide_objects_layer *L, const double *load, const int32_t *dest)
{
    tide_objstats_free_last(L);
    L->last_obj = malloc((size_t)(L->nloc + 1) * sizeof *L->last_obj);
    L->last_edges = malloc((size_t)(L->nedges + 1) * sizeof *L->last_edges);
    TIDE_OBJ_NEED(L->last_obj && L->last_edges);
    for (int64_t i = 0; i < L->nloc; i++)
        L->last_obj[i] = (tide_obj_report){L->loc[i]->id, load[i], L->rank, dest[i]};
    if (L->nedges) memcpy(L->last_edges, L->edges, (size_t)L->nedges * sizeof *L->edges);
    L->last_nobj = L->nloc;
    L->last_nedges = L->nedges;
}

static int cmp_report(const void *a, const void *b)
{
    int64_t x = ((const tide_obj_report *)a)->id, y = ((const tide_obj_report *)b)->id;
    return (x > y) - (x < y);
}

/* Gathers n elements of size bytes from every rank into a fresh array on rank 0 (NULL
 * elsewhere); *total receives the number gathered (0 elsewhere). */
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
    if (!L->nhist) return; /* alike on every rank: the same reschedulings ran everywhere */
    int64_t nobj, nedges;
    tide_obj_report *objs = gather_to_root(L, L->last_obj, L->last_nobj, sizeof *objs, &nobj);
    tide_obj_edge *edges =
        gather_to_root(L, L->last_edges, L->last_nedges, sizeof *L->last_edges, &nedges);
    tide_objstats_free_last(L);
    if (objs) qsort(objs, (size_t)nobj, sizeof *objs, cmp_report);
    L->last_obj = objs;
    L->last_nobj = nobj;
    L->last_edges = edges;
    L->last_nedges = nedges;
}

void tide_objstats_free_last(tide_objects_layer *L)
{
    free(L->last_obj);
    free(L->last_edges);
    L->last_obj = NULL;
    L->last_edges = NULL;
    L->last_nobj = L->last_nedges = 0;
}
