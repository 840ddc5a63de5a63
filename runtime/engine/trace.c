/* Timeline traces (TIDE_TRACE): every thread records into its own buffer, so recording takes no
 * lock and touches no shared cache line; a buffer grows as events come, up to
 * TIDE_TRACE_MAX_EVENTS, and counts what it must drop beyond. With tracing off the runtime's
 * hooks are one branch on rt->trace.
 *
 * At finalize every rank sends its buffers to rank 0, which writes the one file. Gathering
 * through MPI rather than writing a part per rank and merging them assumes no file system shared
 * between the nodes, leaves no partial files behind, and lets one writer order the output.
 *
 * Clocks: ranks of one node share CLOCK_MONOTONIC; the first rank of every other node compares
 * its clock with rank 0's by ping-pong at init and again at finalize (the exchange with the
 * shortest round trip of several gives the offset), and rank 0 maps every rank's times onto its
 * own, interpolating linearly between the two comparisons so that a drift between nodes' clocks
 * is corrected too. */
#include "trace_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What recording a task costs is measured on every COST_EVERY-th task (the clock reading that
 * measures it is not needed on the others), never on a thread's first, which allocates its
 * buffer; a thread keeps its last COST_SAMPLES measurements. */
enum { COST_EVERY = 16, COST_SAMPLES = 128 };

/* One per thread, each on cache lines of its own. */
typedef struct trace_buf {
    _Alignas(TIDE_CACHELINE) tide_trace_event *ev;
    uint64_t n, cap, dropped, tasks;
    uint32_t nsample;
    double sample[COST_SAMPLES]; /* seconds of recent sampled tide_trace_task calls */
} trace_buf;

struct tide_trace {
    int threads, nbuf, size, rank;
    uint64_t max;
    tide_trace_format format;
    trace_buf *buf;
    uint64_t *sent, *received; /* comm thread: messages per peer so far */
    tide_outfile out;          /* rank 0, JSON */
    double origin, sync0, off0, unc0;
    MPI_Comm node, leaders; /* this rank's node; the nodes' first ranks (NULL elsewhere) */
};

enum { SYNC_TAG = 29741, SYNC_ROUNDS = 8, GATHER_TAG = 29742 };

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int tide_trace_create(tide_rt *rt)
{
    if (!rt->cfg.trace_path[0]) return TIDE_OK;
    tide_trace *tr = calloc(1, sizeof *tr);
    if (!tr) return tide_fail(TIDE_ERR_NOMEM, "out of memory for the trace");
    rt->trace = tr;
    tr->size = rt->size;
    tr->rank = rt->rank;
    tr->max = (uint64_t)rt->cfg.trace_max_events;
    tr->out.fd = -1;
    tr->node = tr->leaders = MPI_COMM_NULL;
    tr->format = (tide_trace_format)rt->cfg.trace_format;
    if (tr->format == TIDE_TRACE_AUTO)
        tr->format = ends_with(rt->cfg.trace_path, ".otf2") ? TIDE_TRACE_OTF2 : TIDE_TRACE_JSON;
    tr->sent = calloc((size_t)rt->size, sizeof *tr->sent);
    tr->received = calloc((size_t)rt->size, sizeof *tr->received);
    if (!tr->sent || !tr->received) return tide_fail(TIDE_ERR_NOMEM, "out of memory for the trace");
    if (rt->rank != 0) return TIDE_OK;
    if (tr->format == TIDE_TRACE_OTF2) return tide_trace_otf2_check(rt->cfg.trace_path);
    return tide_outfile_open(&tr->out, "TIDE_TRACE", rt->cfg.trace_path);
}

void tide_trace_discard(tide_rt *rt)
{
    tide_trace *tr = rt->trace;
    if (!tr) return;
    for (int i = 0; tr->buf && i < tr->nbuf; i++)
        free(tr->buf[i].ev);
    free(tr->buf);
    free(tr->sent);
    free(tr->received);
    tide_outfile_close(&tr->out);
    if (tr->node != MPI_COMM_NULL) MPI_Comm_free(&tr->node);
    if (tr->leaders != MPI_COMM_NULL) MPI_Comm_free(&tr->leaders);
    free(tr);
    rt->trace = NULL;
}

/* The offset of this rank's clock to rank 0's (rank 0's time = local + offset) and its
 * uncertainty, half the shortest round trip of SYNC_ROUNDS ping-pongs with rank 0, one rank
 * after another; rank 0 gets 0. Every rank of comm calls it. */
static void ping_pong(MPI_Comm comm, double *offset, double *unc)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double best = INFINITY;
    *offset = *unc = 0;
    for (int r = 1; r < size; r++) {
        for (int k = 0; k < SYNC_ROUNDS; k++) {
            if (rank == 0) {
                double ask, now;
                MPI_Recv(&ask, 1, MPI_DOUBLE, r, SYNC_TAG, comm, MPI_STATUS_IGNORE);
                now = tide_now();
                MPI_Send(&now, 1, MPI_DOUBLE, r, SYNC_TAG, comm);
            } else if (rank == r) {
                double a = tide_now(), there;
                MPI_Send(&a, 1, MPI_DOUBLE, 0, SYNC_TAG, comm);
                MPI_Recv(&there, 1, MPI_DOUBLE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
                double b = tide_now();
                if (b - a < best) {
                    best = b - a;
                    *offset = there - 0.5 * (a + b);
                    *unc = 0.5 * best;
                }
            }
        }
    }
}

/* Ranks of one node (one shared-memory domain) read the same CLOCK_MONOTONIC: only the first
 * rank of each node compares with rank 0 (rank 0 is the first of its node, so its node needs no
 * comparison at all), and tells the others of its node. */
static void compare_clocks(tide_trace *tr, double *offset, double *unc)
{
    double cmp[2] = {0, 0};
    if (tr->leaders != MPI_COMM_NULL) ping_pong(tr->leaders, &cmp[0], &cmp[1]);
    MPI_Bcast(cmp, 2, MPI_DOUBLE, 0, tr->node);
    *offset = cmp[0];
    *unc = cmp[1];
}

void tide_trace_start(tide_rt *rt)
{
    tide_trace *tr = rt->trace;
    tr->threads = rt->threads;
    tr->nbuf = rt->threads + 2;
    tr->buf = aligned_alloc(TIDE_CACHELINE, (size_t)tr->nbuf * sizeof *tr->buf);
    if (!tr->buf) tide_fatal("out of memory for the trace buffers");
    memset(tr->buf, 0, (size_t)tr->nbuf * sizeof *tr->buf);
    int node_rank;
    MPI_Comm_split_type(rt->coll_comm, MPI_COMM_TYPE_SHARED, rt->rank, MPI_INFO_NULL, &tr->node);
    MPI_Comm_rank(tr->node, &node_rank);
    MPI_Comm_split(rt->coll_comm, node_rank == 0 ? 0 : MPI_UNDEFINED, rt->rank, &tr->leaders);
    /* Time 0 of the trace: rank 0's clock before the comparison, which every rank's takes part
     * in, so that no rank's event comes earlier (a rank done comparing may start its tasks). */
    tr->origin = tide_now();
    compare_clocks(tr, &tr->off0, &tr->unc0);
    tr->sync0 = tide_now();
}

/* The next free event of a buffer, or NULL (counted) when it is full. */
static tide_trace_event *next_event(tide_trace *tr, trace_buf *b)
{
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? 2 * b->cap : 1024;
        if (cap > tr->max) cap = tr->max;
        tide_trace_event *ev = cap > b->cap ? realloc(b->ev, cap * sizeof *ev) : NULL;
        if (!ev) {
            b->dropped++;
            return NULL;
        }
        b->ev = ev;
        b->cap = cap;
    }
    return &b->ev[b->n++];
}

static void record(tide_trace *tr, int buf, tide_trace_event e)
{
    tide_trace_event *slot = next_event(tr, &tr->buf[buf]);
    if (slot) *slot = e;
}

void tide_trace_task(tide_trace *tr, int slot, const tide_task *t, int phase, double t0, double t1)
{
    trace_buf *b = &tr->buf[slot];
    tide_trace_event *e = next_event(tr, b);
    if (e)
        *e = (tide_trace_event){.t0 = t0,
                                .t1 = t1,
                                .id = t->seq,
                                .peer = t->origin,
                                .kind = TIDE_TEV_TASK,
                                .flags = (uint16_t)((t->remote ? TIDE_TEV_REMOTE : 0) |
                                                    (t->replicated ? TIDE_TEV_REPLICATED : 0)),
                                .phase = (uint32_t)phase};
    if ((b->tasks++ & (COST_EVERY - 1)) == COST_EVERY - 1)
        b->sample[b->nsample++ % COST_SAMPLES] = tide_now() - t1; /* its clock reading included */
}

/* A message on the comm thread: the n-th between this rank and peer, in that direction. */
static void message(tide_trace *tr, tide_trace_kind kind, int peer, uint64_t n,
                    const tide_wire_header *h, size_t len, double t0, double t1)
{
    record(tr, TIDE_TRACE_COMM_BUF(tr->threads),
           (tide_trace_event){.t0 = t0,
                              .t1 = t1,
                              .id = n,
                              .bytes = len,
                              .peer = peer,
                              .kind = (uint16_t)kind,
                              .flags = h->kind,
                              .count = h->count,
                              .phase = h->phase});
}

void tide_trace_send(tide_trace *tr, int dest, const unsigned char *buf, size_t len, double t0,
                     double t1)
{
    tide_wire_header h;
    memcpy(&h, buf, sizeof h);
    message(tr, TIDE_TEV_SEND, dest, tr->sent[dest]++, &h, len, t0, t1);
}

void tide_trace_recv(tide_trace *tr, const tide_wire_header *h, size_t len, double t0, double t1)
{
    message(tr, TIDE_TEV_RECV, h->src, tr->received[h->src]++, h, len, t0, t1);
}

/* A decision of the comm thread, at this moment. */
static void decision(tide_trace *tr, tide_trace_event e)
{
    e.t0 = e.t1 = tide_now();
    record(tr, TIDE_TRACE_COMM_BUF(tr->threads), e);
}

void tide_trace_move(tide_trace *tr, int phase, int dest, int n, bool planned)
{
    decision(tr, (tide_trace_event){.peer = dest,
                                    .kind = TIDE_TEV_MOVE,
                                    .flags = planned,
                                    .count = (uint32_t)n,
                                    .phase = (uint32_t)phase});
}

void tide_trace_replica(tide_trace *tr, int phase, int dest, uint64_t seq)
{
    decision(tr, (tide_trace_event){
                     .id = seq, .peer = dest, .kind = TIDE_TEV_REPLICA, .phase = (uint32_t)phase});
}

void tide_trace_phase(tide_trace *tr, int phase, long tasks, double t0, double t1)
{
    record(tr, TIDE_TRACE_APP_BUF(tr->threads),
           (tide_trace_event){.t0 = t0,
                              .t1 = t1,
                              .id = (uint64_t)phase,
                              .kind = TIDE_TEV_PHASE,
                              .count = (uint32_t)tasks,
                              .phase = (uint32_t)phase});
}

/* ---- finalize: gather on rank 0 and write -----------------------------------------------------
 */

static tide_trace_summary summary_of(const tide_trace *tr, double sync1, double off1, double unc1)
{
    tide_trace_summary s = {.threads = tr->threads,
                            .nbuf = tr->nbuf,
                            .sync0 = tr->sync0,
                            .off0 = tr->off0,
                            .sync1 = sync1,
                            .off1 = off1,
                            .unc = tr->unc0 > unc1 ? tr->unc0 : unc1};
    double *pool = malloc((size_t)tr->nbuf * COST_SAMPLES * sizeof *pool);
    if (!pool) tide_fatal("out of memory finishing the trace");
    int n = 0;
    for (int i = 0; i < tr->nbuf; i++) {
        s.tasks += tr->buf[i].tasks;
        s.dropped += tr->buf[i].dropped;
        uint32_t k = tr->buf[i].nsample < COST_SAMPLES ? tr->buf[i].nsample : COST_SAMPLES;
        for (uint32_t j = 0; j < k; j++)
            pool[n++] = tr->buf[i].sample[j];
    }
    s.cost = tide_trace_median(pool, n);
    free(pool);
    return s;
}

static void send_to_root(const tide_trace *tr, MPI_Comm comm, const tide_trace_summary *s)
{
    MPI_Send(s, sizeof *s, MPI_BYTE, 0, GATHER_TAG, comm);
    uint64_t *n = malloc((size_t)tr->nbuf * sizeof *n);
    if (!n) tide_fatal("out of memory sending the trace");
    for (int i = 0; i < tr->nbuf; i++)
        n[i] = tr->buf[i].n;
    MPI_Send(n, tr->nbuf, MPI_UINT64_T, 0, GATHER_TAG, comm);
    for (int i = 0; i < tr->nbuf; i++) /* at most 16M events of 48 bytes: within an int count */
        if (n[i])
            MPI_Send(tr->buf[i].ev, (int)(n[i] * sizeof(tide_trace_event)), MPI_BYTE, 0, GATHER_TAG,
                     comm);
    free(n);
}

static void recv_from(tide_trace_rank *to, int r, MPI_Comm comm)
{
    MPI_Recv(&to->sum, sizeof to->sum, MPI_BYTE, r, GATHER_TAG, comm, MPI_STATUS_IGNORE);
    int nbuf = to->sum.nbuf;
    to->n = calloc((size_t)nbuf, sizeof *to->n);
    to->event = calloc((size_t)nbuf, sizeof *to->event);
    if (!to->n || !to->event)
        tide_fatal("out of memory gathering the trace (lower TIDE_TRACE_MAX_EVENTS)");
    MPI_Recv(to->n, nbuf, MPI_UINT64_T, r, GATHER_TAG, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < nbuf; i++) {
        if (!to->n[i]) continue;
        to->event[i] = malloc(to->n[i] * sizeof(tide_trace_event));
        if (!to->event[i])
            tide_fatal("out of memory gathering the trace of rank %d (%llu events; lower "
                       "TIDE_TRACE_MAX_EVENTS)",
                       r, (unsigned long long)to->n[i]);
        MPI_Recv(to->event[i], (int)(to->n[i] * sizeof(tide_trace_event)), MPI_BYTE, r, GATHER_TAG,
                 comm, MPI_STATUS_IGNORE);
    }
}

typedef struct task_key {
    int64_t origin;
    uint64_t seq;
} task_key;

static int key_cmp(const void *a, const void *b)
{
    const task_key *x = a, *y = b;
    if (x->origin != y->origin) return x->origin < y->origin ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A holder cannot tell a replica copy from an offloaded task (the wire does not say); its
 * origin recorded the copy, so rank 0 marks the holder's execution of it. */
static void mark_copies(tide_trace_run *run)
{
    size_t n = 0, cap = 0;
    task_key *keys = NULL;
    for (int r = 0; r < run->nranks; r++) {
        tide_trace_rank *k = &run->rank[r];
        int comm = TIDE_TRACE_COMM_BUF(k->sum.threads);
        for (uint64_t i = 0; i < k->n[comm]; i++) {
            if (k->event[comm][i].kind != TIDE_TEV_REPLICA) continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                task_key *more = realloc(keys, cap * sizeof *keys);
                if (!more) tide_fatal("out of memory merging the trace");
                keys = more;
            }
            keys[n++] = (task_key){r, k->event[comm][i].id};
        }
    }
    if (!n) return;
    qsort(keys, n, sizeof *keys, key_cmp);
    for (int r = 0; r < run->nranks; r++) {
        tide_trace_rank *k = &run->rank[r];
        for (int b = 0; b < k->sum.threads; b++)
            for (uint64_t i = 0; i < k->n[b]; i++) {
                tide_trace_event *e = &k->event[b][i];
                task_key key = {e->peer, e->id};
                if ((e->flags & TIDE_TEV_REMOTE) && bsearch(&key, keys, n, sizeof *keys, key_cmp))
                    e->flags |= TIDE_TEV_COPY;
            }
    }
    free(keys);
}

/* Rank 0: writes the file and says what it holds and what recording cost. */
static int write_run(tide_rt *rt, tide_trace_run *run)
{
    tide_trace *tr = rt->trace;
    mark_copies(run);
    double t0 = tide_now();
    int rc;
    if (tr->format == TIDE_TRACE_OTF2) {
        rc = tide_trace_write_otf2(run, rt->cfg.trace_path);
    } else {
        FILE *f = tide_outfile_begin(&tr->out);
        rc = f ? tide_trace_write_json(run, f) : TIDE_ERR_INVALID;
        if (f) {
            int end = tide_outfile_end(&tr->out, f);
            if (rc == TIDE_OK) rc = end;
        }
    }
    if (rc != TIDE_OK) return rc;
    uint64_t events = 0, dropped = 0;
    for (int r = 0; r < run->nranks; r++) {
        for (int b = 0; b < run->rank[r].sum.nbuf; b++)
            events += run->rank[r].n[b];
        dropped += run->rank[r].sum.dropped;
    }
    if (dropped)
        fprintf(stderr,
                "tide: TIDE_TRACE: %llu events were dropped (a thread's buffer held "
                "TIDE_TRACE_MAX_EVENTS=%d); the trace says which ranks lost events\n",
                (unsigned long long)dropped, rt->cfg.trace_max_events);
    double lo, hi, cost = tide_trace_cost(run, &lo, &hi);
    if (!rt->cfg.quiet && cost < 0)
        printf("tide: trace %s: %llu events, %llu dropped; recording cost not measured (it is "
               "on every 16th task of a thread); written in %.2f s\n",
               rt->cfg.trace_path, (unsigned long long)events, (unsigned long long)dropped,
               tide_now() - t0);
    else if (!rt->cfg.quiet)
        printf("tide: trace %s: %llu events, %llu dropped; recording a task costs %.0f ns (median; "
               "ranks %.0f-%.0f ns); written in %.2f s\n",
               rt->cfg.trace_path, (unsigned long long)events, (unsigned long long)dropped,
               1e9 * cost, 1e9 * lo, 1e9 * hi, tide_now() - t0);
    return TIDE_OK;
}

int tide_trace_finish(tide_rt *rt)
{
    tide_trace *tr = rt->trace;
    if (!tr) return TIDE_OK;
    double off1, unc1;
    compare_clocks(tr, &off1, &unc1);
    tide_trace_summary mine = summary_of(tr, tide_now(), off1, unc1);
    int rc = TIDE_OK;
    if (rt->rank != 0) {
        send_to_root(tr, rt->coll_comm, &mine);
    } else {
        tide_trace_run run = {.nranks = rt->size,
                              .origin = tr->origin,
                              .log = &rt->log,
                              .max_events = rt->cfg.trace_max_events};
        run.rank = calloc((size_t)rt->size, sizeof *run.rank);
        uint64_t *n0 = calloc((size_t)tr->nbuf, sizeof *n0);
        tide_trace_event **ev0 = calloc((size_t)tr->nbuf, sizeof *ev0);
        if (!run.rank || !n0 || !ev0) tide_fatal("out of memory gathering the trace");
        for (int i = 0; i < tr->nbuf; i++) {
            n0[i] = tr->buf[i].n;
            ev0[i] = tr->buf[i].ev;
        }
        run.rank[0] = (tide_trace_rank){mine, n0, ev0};
        for (int r = 1; r < rt->size; r++)
            recv_from(&run.rank[r], r, rt->coll_comm);
        rc = write_run(rt, &run);
        for (int r = 1; r < rt->size; r++) {
            for (int i = 0; i < run.rank[r].sum.nbuf; i++)
                free(run.rank[r].event[i]);
            free(run.rank[r].event);
            free(run.rank[r].n);
        }
        free(n0);
        free(ev0);
        free(run.rank);
        if (rc == TIDE_OK) rc = tide_outfile_close(&tr->out);
    }
    tide_trace_discard(rt);
    return rc;
}
