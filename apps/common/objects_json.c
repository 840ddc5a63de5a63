#include "objects_json.h"

#include <inttypes.h>

static void json_doubles(FILE *f, const char *name, const double *v, int64_t n)
{
    fprintf(f, "  \"%s\": [", name);
    for (int64_t k = 0; k < n; k++)
        fprintf(f, "%s%.9g", k ? ", " : "", v[k]);
    fprintf(f, "],\n");
}

void objects_json_series(FILE *f, const double *iter_s, const double *load_max,
                         const double *load_avg, int64_t n)
{
    json_doubles(f, "iteration_s", iter_s, n);
    json_doubles(f, "load_max_s", load_max, n);
    json_doubles(f, "load_avg_s", load_avg, n);
}

void objects_json_tail(FILE *f, const tide_objects_stats *s, int64_t failures,
                       const tide_objects_lb_record *rounds, int64_t nrounds)
{
    fprintf(f,
            "  \"summary\": {\"reschedules\": %" PRId64 ", \"decision_s\": %.9g, \"gather_s\": "
            "%.9g, \"migrate_s\": %.9g, \"moved\": %" PRId64 ", \"bytes_moved\": %" PRId64
            ", \"messages\": %" PRId64 ", \"message_bytes\": %" PRId64 ", \"failures\": %" PRId64
            "},\n  \"reschedules\": [",
            s->reschedules, s->decision_s_total, s->gather_s_total, s->migrate_s_total,
            s->moved_total, s->bytes_moved_total, s->messages, s->message_bytes, failures);
    for (int64_t k = 0; k < nrounds; k++) {
        const tide_objects_lb_record *x = &rounds[k];
        fprintf(f,
                "%s\n    {\"iteration\": %" PRId64 ", \"decision_s\": %.9g, \"gather_s\": %.9g, "
                "\"migrate_s\": %.9g, \"moved\": %" PRId64 ", \"bytes\": %" PRId64
                ", \"max_before\": %.9g, \"avg\": %.9g, \"max_after\": %.9g}",
                k ? "," : "", x->iteration + 1, x->decision_s, x->gather_s, x->migrate_s, x->moved,
                x->bytes_moved, x->max_before, x->avg, x->max_after);
    }
    fprintf(f, "%s]\n}\n", nrounds ? "\n  " : "");
}
