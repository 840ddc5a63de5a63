/* Statistics of the objects layer: per-iteration rank loads, every rescheduling, and the
 * TIDE_OBJECTS_STATS JSON document (schema in docs/objects.md). */
#include "objects_internal.h"

#include <stdlib.h>

void tide_objstats_iteration(tide_objects_layer *L, double load_self, int64_t delivered,
                             int64_t bytes)
{
    double mine[3] = {load_self, (double)delivered, (double)bytes};
    double *all = malloc((size_t)L->size * sizeof mine);
    TIDE_OBJ_NEED(all);
    MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, L->comm);
    double max = 0, sum = 0;
    int64_t msgs = 0, msg_bytes = 0;
    for (int r = 0; r < L->size; r++) {
        if (all[3 * r] > max) max = all[3 * r];
        sum += all[3 * r];
        msgs += (int64_t)all[3 * r + 1];
        msg_bytes += (int64_t)all[3 * r + 2];
    }
    free(all);
    tide_objects_stats *st = &L->st;
    st->load_max = max;
    st->load_avg = sum / L->size;
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
            "\"avg\": %.9g, \"comm_before\": %.9g, \"comm_after\": %.9g}",
            (long long)r->iteration, r->decision_s, r->gather_s, r->migrate_s, (long long)r->moved,
            (long long)r->bytes_moved, r->max_before, r->max_after, r->avg, r->comm_before,
            r->comm_after);
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
