/* The trace as Chrome trace-event JSON (docs/trace.md), which Perfetto and chrome://tracing open:
 * pid = rank, tid = worker (0 ..), the comm thread (1000) or the application's phases (1001);
 * tasks, messages and phases are "X" events, a message's send and receive are joined by a flow
 * ("s" and "f"), the plan's moves are instant events and the loads of each phase (predicted and
 * measured) a counter per rank. The top-level "tidePlan" repeats the plan per phase for tools. */
#include "trace_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

typedef struct out {
    FILE *f;
    const tide_trace_run *run;
    bool first;
} out;

static void next(out *o)
{
    fputs(o->first ? "\n" : ",\n", o->f);
    o->first = false;
}

static double us(const out *o, int rank, double local)
{
    return 1e6 * tide_trace_time(o->run, rank, local);
}

static void thread_name(out *o, int rank, int tid, const char *name, int sort)
{
    next(o);
    fprintf(
        o->f,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}"
        ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":"
        "{\"sort_index\":%d}}",
        rank, tid, name, rank, tid, sort);
}

static void metadata(out *o, int r)
{
    next(o);
    fprintf(
        o->f,
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}",
        r, r, r, r);
    char name[32];
    int threads = o->run->rank[r].sum.threads;
    for (int w = 0; w < threads; w++) {
        snprintf(name, sizeof name, "worker %d", w);
        thread_name(o, r, w, name, w + 2);
    }
    thread_name(o, r, TIDE_TRACE_TID_APP, "phases", 0);
    thread_name(o, r, TIDE_TRACE_TID_COMM, "comm thread", 1);
}

/* A flow id unique to one message: the k-th from src to dst. */
static uint64_t flow_id(const out *o, int src, int dst, uint64_t k)
{
    uint64_t n = (uint64_t)o->run->nranks;
    return (k * n + (uint64_t)src) * n + (uint64_t)dst;
}

static void task(out *o, int r, int tid, const tide_trace_event *e)
{
    next(o);
    double t0 = us(o, r, e->t0);
    fprintf(o->f,
            "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"task\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
            "\"dur\":%.3f,\"args\":{\"origin\":%d,\"seq\":%" PRIu64 ",\"phase\":%u%s}}",
            tide_trace_task_kind(e), r, tid, t0, us(o, r, e->t1) - t0, e->peer, e->id, e->phase + 1,
            e->flags & TIDE_TEV_REPLICATED ? ",\"replicated\":true" : "");
}

static void message(out *o, int r, const tide_trace_event *e)
{
    bool send = e->kind == TIDE_TEV_SEND;
    int src = send ? r : e->peer, dst = send ? e->peer : r;
    double t0 = us(o, r, e->t0);
    next(o);
    fprintf(o->f,
            "{\"ph\":\"X\",\"name\":\"%s %s\",\"cat\":\"msg\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
            "\"dur\":%.3f,\"args\":{\"%s\":%d,\"bytes\":%" PRIu64 ",\"records\":%u,\"n\":%" PRIu64
            ",\"phase\":%u}},\n",
            send ? "send" : "recv", tide_trace_msg_name(e->flags), r, TIDE_TRACE_TID_COMM, t0,
            us(o, r, e->t1) - t0, send ? "to" : "from", e->peer, e->bytes, e->count, e->id,
            e->phase + 1);
    fprintf(o->f,
            "{\"ph\":\"%s\",%s\"name\":\"message\",\"cat\":\"msg\",\"id\":%" PRIu64
            ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
            send ? "s" : "f", send ? "" : "\"bp\":\"e\",", flow_id(o, src, dst, e->id), r,
            TIDE_TRACE_TID_COMM, t0);
}

static void other(out *o, int r, const tide_trace_event *e)
{
    double t0 = us(o, r, e->t0);
    next(o);
    if (e->kind == TIDE_TEV_PHASE)
        fprintf(o->f,
                "{\"ph\":\"X\",\"name\":\"phase %u\",\"cat\":\"phase\",\"pid\":%d,\"tid\":%d,"
                "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"phase\":%u,\"tasks\":%u}}",
                e->phase + 1, r, TIDE_TRACE_TID_APP, t0, us(o, r, e->t1) - t0, e->phase + 1,
                e->count);
    else if (e->kind == TIDE_TEV_MOVE)
        fprintf(o->f,
                "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"%s\",\"cat\":\"plan\",\"pid\":%d,\"tid\":%d,"
                "\"ts\":%.3f,\"args\":{\"to\":%d,\"tasks\":%u,\"phase\":%u}}",
                e->flags ? "plan: offload" : "move", r, TIDE_TRACE_TID_COMM, t0, e->peer, e->count,
                e->phase + 1);
    else
        fprintf(o->f,
                "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"replicate\",\"cat\":\"plan\",\"pid\":%d,"
                "\"tid\":%d,\"ts\":%.3f,\"args\":{\"to\":%d,\"seq\":%" PRIu64 ",\"phase\":%u}}",
                r, TIDE_TRACE_TID_COMM, t0, e->peer, e->id, e->phase + 1);
}

static void events_of(out *o, int r)
{
    const tide_trace_rank *k = &o->run->rank[r];
    for (int b = 0; b < k->sum.nbuf; b++)
        for (uint64_t i = 0; i < k->n[b]; i++) {
            const tide_trace_event *e = &k->event[b][i];
            if (e->kind == TIDE_TEV_TASK)
                task(o, r, b, e);
            else if (e->kind == TIDE_TEV_SEND || e->kind == TIDE_TEV_RECV)
                message(o, r, e);
            else
                other(o, r, e);
        }
}

/* Where rank r's phase p began (its PHASE event), or -1 when it was not recorded. */
static double phase_start(const out *o, int r, int p)
{
    const tide_trace_rank *k = &o->run->rank[r];
    int app = TIDE_TRACE_APP_BUF(k->sum.threads);
    for (uint64_t i = 0; i < k->n[app]; i++)
        if (k->event[app][i].phase == (uint32_t)p) return us(o, r, k->event[app][i].t0);
    return -1;
}

/* Per rank and phase a counter "load" with the predicted (when there was a prediction) and the
 * measured load, at the phase's start. */
static void loads(out *o)
{
    const tide_phase_log *log = o->run->log;
    for (int p = 0; p < log->nphases; p++)
        for (int r = 0; r < o->run->nranks; r++) {
            const tide_rank_record *rec = &log->records[(size_t)p * (size_t)log->nranks + r];
            double ts = phase_start(o, r, p);
            if (ts < 0) continue;
            next(o);
            fprintf(o->f, "{\"ph\":\"C\",\"name\":\"load (s)\",\"pid\":%d,\"ts\":%.3f,\"args\":{",
                    r, ts);
            if (rec->L_pred >= 0) fprintf(o->f, "\"predicted\":%.9g,", rec->L_pred);
            fprintf(o->f, "\"measured\":%.9g}}", rec->L);
        }
}

static void rank_array(FILE *f, const char *name, const tide_phase_log *log, int p, size_t off,
                       bool neg_null)
{
    fprintf(f, "\"%s\":[", name);
    for (int r = 0; r < log->nranks; r++) {
        double v;
        memcpy(&v, (const char *)&log->records[(size_t)p * (size_t)log->nranks + r] + off,
               sizeof v);
        if (neg_null && v < 0)
            fprintf(f, "%snull", r ? "," : "");
        else
            fprintf(f, "%s%.9g", r ? "," : "", v);
    }
    fputs("],", f);
}

/* One rank's moves of phase p, summed per destination and kind: [from, to, tasks, planned].
 * Its comm thread records them in phase order: *at walks through them once. */
static void moves_of(out *o, int r, int p, uint64_t *at, int *sum, bool *first)
{
    const tide_trace_rank *k = &o->run->rank[r];
    int comm = TIDE_TRACE_COMM_BUF(k->sum.threads), n = o->run->nranks;
    memset(sum, 0, 2 * (size_t)n * sizeof *sum);
    for (; *at < k->n[comm] && k->event[comm][*at].phase <= (uint32_t)p; ++*at) {
        const tide_trace_event *e = &k->event[comm][*at];
        if (e->kind == TIDE_TEV_MOVE && e->phase == (uint32_t)p)
            sum[2 * e->peer + (e->flags ? 1 : 0)] += (int)e->count;
    }
    for (int i = 0; i < 2 * n; i++) {
        if (!sum[i]) continue;
        fprintf(o->f, "%s[%d,%d,%d,%s]", *first ? "" : ",", r, i / 2, sum[i],
                i % 2 ? "true" : "false");
        *first = false;
    }
}

/* tidePlan: per phase every rank's loads and the strategy's moves [from, to, tasks, planned]. */
static void plan(out *o)
{
    const tide_phase_log *log = o->run->log;
    int n = o->run->nranks;
    uint64_t *at = calloc((size_t)n, sizeof *at);
    int *sum = malloc(2 * (size_t)n * sizeof *sum);
    if (!at || !sum) tide_fatal("out of memory writing the trace");
    fputs(",\n\"tidePlan\":[", o->f);
    for (int p = 0; p < log->nphases; p++) {
        fprintf(o->f, "%s\n{\"phase\":%d,", p ? "," : "", p + 1);
        rank_array(o->f, "L_pred", log, p, offsetof(tide_rank_record, L_pred), true);
        rank_array(o->f, "L", log, p, offsetof(tide_rank_record, L), false);
        rank_array(o->f, "W", log, p, offsetof(tide_rank_record, W), false);
        fputs("\"moves\":[", o->f);
        bool first = true;
        for (int r = 0; r < n; r++)
            moves_of(o, r, p, &at[r], sum, &first);
        fputs("]}", o->f);
    }
    fputs("]", o->f);
    free(at);
    free(sum);
}

static void other_data(out *o)
{
    uint64_t dropped = 0;
    fputs("\"otherData\":{\"format\":\"tide-trace\",\"version\":1,", o->f);
    fprintf(o->f, "\"ranks\":%d,\"max_events_per_thread\":%d,", o->run->nranks, o->run->max_events);
    for (int r = 0; r < o->run->nranks; r++) {
        const tide_trace_summary *s = &o->run->rank[r].sum;
        dropped += s->dropped;
        if (s->dropped) fprintf(o->f, "\"dropped_rank_%d\":%" PRIu64 ",", r, s->dropped);
        fprintf(o->f, "\"clock_offset_us_rank_%d\":%.3f,\"clock_uncertainty_us_rank_%d\":%.3f,", r,
                1e6 * s->off0, r, 1e6 * s->unc);
    }
    double lo, hi, cost = tide_trace_cost(o->run, &lo, &hi);
    fprintf(o->f, "\"dropped_events\":%" PRIu64 ",", dropped);
    if (cost >= 0)
        fprintf(o->f,
                "\"record_ns_per_task\":%.1f,\"record_ns_rank_min\":%.1f,"
                "\"record_ns_rank_max\":%.1f}",
                1e9 * cost, 1e9 * lo, 1e9 * hi);
    else
        fputs("\"record_ns_per_task\":null}", o->f);
}

int tide_trace_write_json(const tide_trace_run *run, FILE *f)
{
    out o = {f, run, true};
    fputs("{\"displayTimeUnit\":\"ms\",\n", f);
    other_data(&o);
    fputs(",\n\"traceEvents\":[", f);
    for (int r = 0; r < run->nranks; r++)
        metadata(&o, r);
    for (int r = 0; r < run->nranks; r++)
        events_of(&o, r);
    loads(&o);
    fputs("\n]", f);
    plan(&o);
    fputs("}\n", f);
    return TIDE_OK;
}
