/* Rank 0's view of a gathered trace, shared by trace.c (the finalize summary) and the writers
 * (trace_json.c, trace_otf2.c): every rank's times on rank 0's clock, the names the outputs give
 * messages and tasks, and the recording cost the ranks measured. A file of its own so that the
 * recorder and the writers both depend on it and not on each other. */
#include "trace_run.h"

#include <stdlib.h>

double tide_trace_time(const tide_trace_run *run, int r, double local)
{
    const tide_trace_summary *s = &run->rank[r].sum;
    double off = s->off0;
    if (s->sync1 > s->sync0)
        off += (s->off1 - s->off0) * (local - s->sync0) / (s->sync1 - s->sync0);
    return local + off - run->origin;
}

const char *tide_trace_msg_name(int wire_kind)
{
    switch (wire_kind) {
    case TIDE_MSG_TASKS:
        return "tasks";
    case TIDE_MSG_RESULT:
        return "result";
    default:
        return "control";
    }
}

const char *tide_trace_task_kind(const tide_trace_event *e)
{
    if (e->flags & TIDE_TEV_COPY) return "replica";
    return e->flags & TIDE_TEV_REMOTE ? "offloaded" : "local";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0 .. n) (sorted in place), -1 when n is 0. */
double tide_trace_median(double *v, int n)
{
    if (n == 0) return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tide_trace_cost(const tide_trace_run *run, double *lo, double *hi)
{
    double *v = malloc((size_t)run->nranks * sizeof *v);
    if (!v) tide_fatal("out of memory writing the trace");
    int n = 0;
    for (int r = 0; r < run->nranks; r++)
        if (run->rank[r].sum.cost >= 0) v[n++] = run->rank[r].sum.cost;
    double m = tide_trace_median(v, n);
    *lo = n ? v[0] : -1;
    *hi = n ? v[n - 1] : -1;
    free(v);
    return m;
}
