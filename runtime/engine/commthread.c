/* The comm thread: the only runtime thread that calls MPI. One loop turn receives messages,
 * sends results and offloaded tasks, advances the phase protocol, and lets the strategy act.
 * When nothing happens for TIDE_POLL_SPIN turns it sleeps, doubling the sleep up to
 * TIDE_POLL_SLEEP_MAX_US, so that idle ranks leave the cores to the workers.
 *
 * Phase protocol (every collective on coll_comm, issued in the same order on every rank):
 *   [start sync: status allgather, for strategies that move tasks]
 *   run: until every own task of the phase has completed (locally or with its result home)
 *   end: status allgathers every TIDE_ROUND_US until one shows no outstanding work anywhere
 *        (strategies with rounds), or one status allgather that each rank joins once its own
 *        tasks are complete (without): then no task of the phase is running or travelling
 *   iallgather of the per-rank phase records (statistics), then the workers are released.
 * tide_finalize ends with one more status allgather, marked finalizing.
 *
 * Every status record carries its rank's phase number and whether it is finalizing, and the
 * first collective a rank joins in a phase, or in tide_finalize, is always a status allgather.
 * So a rank that called tide_taskwait more or fewer times than the others meets them in a
 * collective of the same shape (not in one that MPI would truncate or never match), every rank
 * sees the mismatch in the same records, and the job ends with one line naming it. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_MSG 7

/* Offloaded tasks awaiting their result, chained by seq through task->next. */
struct tide_inflight {
    tide_task **buckets;
    size_t nbuckets, count;
};

typedef struct send_slot {
    unsigned char *buf;
    size_t len;
} send_slot;

typedef enum { PH_IDLE, PH_START_SYNC, PH_RUN, PH_ROUND, PH_END, PH_GATHER } phase_state;

typedef struct comm_state {
    tide_rt *rt;
    phase_state state;
    MPI_Request coll_req;
    tide_rank_status my_status, *all_status;
    double next_round; /* tide_now() at which the next status round starts */
    tide_rank_record mine, *all;
    /* Sends in progress. */
    MPI_Request *reqs;
    send_slot *slots;
    int nsends, capsends;
    int *done_idx;
    bool warned_unmovable;
    int nphases; /* phases completed by this thread */
    bool final_posted; /* the closing allgather of tide_finalize */
    bool final_checked;
    MPI_Request final_req;
} comm_state;

/* ---- in-flight table ------------------------------------------------------------------------- */

static void inflight_put(tide_inflight *f, tide_task *t)
{
    if (f->count + 1 > f->nbuckets) {
        size_t nb = f->nbuckets ? 2 * f->nbuckets : 256;
        tide_task **b = calloc(nb, sizeof *b);
        if (!b) tide_fatal("out of memory growing the in-flight table");
        for (size_t i = 0; i < f->nbuckets; i++)
            for (tide_task *x = f->buckets[i], *nx; x; x = nx) {
                nx = x->next;
                x->next = b[x->seq & (nb - 1)];
                b[x->seq & (nb - 1)] = x;
            }
        free(f->buckets);
        f->buckets = b;
        f->nbuckets = nb;
    }
    tide_task **head = &f->buckets[t->seq & (f->nbuckets - 1)];
    t->next = *head;
    *head = t;
    f->count++;
}

static tide_task *inflight_take(tide_inflight *f, uint64_t seq)
{
    if (!f->nbuckets) return NULL;
    for (tide_task **p = &f->buckets[seq & (f->nbuckets - 1)]; *p; p = &(*p)->next)
        if ((*p)->seq == seq) {
            tide_task *t = *p;
            *p = t->next;
            f->count--;
            return t;
        }
    return NULL;
}

/* ---- sending ----------------------------------------------------------------------------------- */

static void start_send(comm_state *cs, int dest, unsigned char *buf, size_t len)
{
    tide_rt *rt = cs->rt;
    if (cs->nsends == cs->capsends) {
        int cap = cs->capsends ? 2 * cs->capsends : 64;
        cs->reqs = realloc(cs->reqs, (size_t)cap * sizeof *cs->reqs);
        cs->slots = realloc(cs->slots, (size_t)cap * sizeof *cs->slots);
        cs->done_idx = realloc(cs->done_idx, (size_t)cap * sizeof *cs->done_idx);
        if (!cs->reqs || !cs->slots || !cs->done_idx) tide_fatal("out of memory for sends");
        cs->capsends = cap;
    }
    if (len > (size_t)INT32_MAX)
        tide_fatal("message of %zu bytes exceeds MPI's int count (split the task's data)", len);
    MPI_Isend(buf, (int)len, MPI_BYTE, dest, TAG_MSG, rt->data_comm, &cs->reqs[cs->nsends]);
    cs->slots[cs->nsends] = (send_slot){buf, len};
    cs->nsends++;
    rt->inflight_bytes += len;
    rt->bytes_sent += len;
}

static comm_state *the_state;

void tide_comm_send(tide_rt *rt, int dest, unsigned char *buf, size_t len)
{
    (void)rt;
    start_send(the_state, dest, buf, len);
}

void tide_send_control(tide_rt *rt, int dest, const tide_control *msg)
{
    size_t len = sizeof(tide_wire_header) + sizeof *msg;
    unsigned char *buf = malloc(len);
    if (!buf) tide_fatal("out of memory for a control message");
    tide_wire_put_header(buf, TIDE_MSG_CONTROL, 1, msg->phase, sizeof *msg, rt->rank);
    memcpy(buf + sizeof(tide_wire_header), msg, sizeof *msg);
    start_send(the_state, dest, buf, len);
}

static bool complete_sends(comm_state *cs)
{
    if (!cs->nsends) return false;
    int ndone = 0;
    MPI_Testsome(cs->nsends, cs->reqs, &ndone, cs->done_idx, MPI_STATUSES_IGNORE);
    if (ndone <= 0 || ndone == MPI_UNDEFINED) return false;
    for (int k = 0; k < ndone; k++) {
        send_slot *s = &cs->slots[cs->done_idx[k]];
        cs->rt->inflight_bytes -= s->len;
        free(s->buf);
        s->buf = NULL;
    }
    int w = 0;
    for (int i = 0; i < cs->nsends; i++)
        if (cs->slots[i].buf) {
            cs->reqs[w] = cs->reqs[i];
            cs->slots[w] = cs->slots[i];
            w++;
        }
    cs->nsends = w;
    return true;
}

/* The in-flight bound admits a message when it fits, or when nothing else is in flight (a
 * single task larger than the bound must still be able to move). */
static bool fits(tide_rt *rt, size_t len)
{
    return rt->inflight_bytes == 0 || rt->inflight_bytes + len <= rt->cfg.max_inflight;
}

static bool send_results(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    bool did = false;
    tide_task *t;
    while (atomic_load_explicit(&rt->results.count, memory_order_relaxed) > 0) {
        pthread_mutex_lock(&rt->results.lock);
        t = rt->results.head;
        bool ok = t && fits(rt, t->result_len);
        pthread_mutex_unlock(&rt->results.lock);
        if (!ok) break;
        t = tide_queue_pop_front(&rt->results);
        start_send(cs, t->origin, t->result, t->result_len);
        t->result = NULL; /* the send owns it now */
        tide_task_free(t);
        did = true;
    }
    return did;
}

void tide_coll_allgatherv(tide_rt *rt, const double *mine, int n, const int *counts, double *out)
{
    int *displs = malloc((size_t)rt->size * sizeof *displs);
    if (!displs) tide_fatal("out of memory for an allgather");
    int off = 0;
    for (int i = 0; i < rt->size; i++) {
        displs[i] = off;
        off += counts[i];
    }
    MPI_Allgatherv(mine, n, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, rt->coll_comm);
    free(displs);
}

int tide_offload_selected(tide_rt *rt, const int32_t *dest, long n)
{
    int moved = 0;
    long k = 0;
    pthread_mutex_lock(&rt->local.lock);
    for (tide_task *t = rt->local.head, *next; t && k < n; t = next, k++) {
        next = t->next;
        int d = dest[k];
        if (d == rt->rank || d < 0 || d >= rt->size || t->replicated) continue;
        if (t->prev) t->prev->next = t->next;
        else rt->local.head = t->next;
        if (t->next) t->next->prev = t->prev;
        else rt->local.tail = t->prev;
        t->queued = false;
        atomic_fetch_sub(&rt->local.count, 1);
        tide_queue_push(&rt->outgoing[d], t);
        moved++;
    }
    pthread_mutex_unlock(&rt->local.lock);
    return moved;
}

int tide_offload_tasks(tide_rt *rt, int dest, int n)
{
    if (dest == rt->rank || dest < 0 || dest >= rt->size || n <= 0) return 0;
    int taken = 0;
    tide_task *batch[64];
    while (taken < n) {
        int want = n - taken < 64 ? n - taken : 64;
        int got = tide_queue_take_back(&rt->local, batch, want);
        for (int i = 0; i < got; i++) tide_queue_push(&rt->outgoing[dest], batch[i]);
        taken += got;
        if (got < want) break;
    }
    return taken;
}

/* Tasks whose function has no portable identity cannot move: they go back to the local queue
 * (said once per rank, since this is a property of how the program was linked). */
static bool encodable(comm_state *cs, tide_task *t, tide_fnid *id)
{
    int rc = tide_fnid_of(t->fn, id);
    if (rc == TIDE_OK && tide_wire_task_size(t) + sizeof(tide_wire_header) > (size_t)INT32_MAX)
        rc = tide_fail(TIDE_ERR_UNSUPPORTED, "its data exceeds MPI's 2 GiB message limit");
    if (rc == TIDE_OK) return true;
    if (!cs->warned_unmovable)
        fprintf(stderr, "tide: rank %d: a task stays local: %s\n", cs->rt->rank,
                tide_last_error_message());
    cs->warned_unmovable = true;
    tide_queue_push(&cs->rt->local, t);
    tide_workers_wake(cs->rt); /* idle workers would otherwise find it only at their timeout */
    return false;
}

/* Sends at most one message to rank dest: one task (rr) or as many as the in-flight bound admits
 * (packed). Returns false when there was nothing to send or the bound is reached. */
static bool send_one_message(comm_state *cs, int dest)
{
    tide_rt *rt = cs->rt;
    tide_queue *q = &rt->outgoing[dest];
    if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return false;
    int max = rt->cfg.offload == TIDE_OFFLOAD_PACKED ? 256 : 1;
    /* A package holds at most TIDE_PACK_MAX bytes (and at least one task), and at most an
     * eighth of the in-flight bound, so that several messages are in flight at once and packing
     * the next overlaps sending the previous. Packing pays for small tasks, whose per-message
     * cost dominates; a huge package only adds page faults (bench/micro_bandwidth.c). */
    size_t cap = rt->cfg.max_inflight / 8;
    if (cap > rt->cfg.pack_max) cap = rt->cfg.pack_max;
    tide_task *batch[256];
    tide_fnid ids[256];
    int n = 0;
    size_t len = sizeof(tide_wire_header);
    pthread_mutex_lock(&q->lock);
    for (tide_task *t = q->head; t && n < max; t = t->next) {
        size_t sz = tide_wire_task_size(t);
        if (n > 0 && len + sz > cap) break;
        bool first_alone = n == 0 && rt->inflight_bytes == 0;
        if (!first_alone && rt->inflight_bytes + len + sz > rt->cfg.max_inflight) break;
        len += sz;
        n++;
    }
    pthread_mutex_unlock(&q->lock);
    if (n == 0) return false;
    int got = 0;
    for (int i = 0; i < n; i++) {
        tide_task *t = tide_queue_pop_front(q);
        if (encodable(cs, t, &ids[got])) batch[got++] = t;
        else len -= tide_wire_task_size(t);
    }
    if (!got) return true;
    unsigned char *buf = malloc(len);
    if (!buf) tide_fatal("out of memory packing %zu bytes", len);
    size_t off = sizeof(tide_wire_header);
    for (int i = 0; i < got; i++) {
        off += tide_wire_put_task(buf + off, batch[i], ids[i]);
        inflight_put(rt->inflight, batch[i]);
    }
    tide_wire_put_header(buf, TIDE_MSG_TASKS, (uint32_t)got, (uint32_t)cs->nphases,
                         off - sizeof(tide_wire_header), rt->rank);
    start_send(cs, dest, buf, off);
    rt->n_offloaded += got;
    return true;
}

/* One message per destination per pass, so that with rr the tasks leave round-robin across
 * the destinations (proact_off1) rather than one destination after another. */
static bool send_outgoing(comm_state *cs)
{
    bool did = false, progress;
    do {
        progress = false;
        for (int dest = 0; dest < cs->rt->size; dest++) progress |= send_one_message(cs, dest);
        did |= progress;
    } while (progress);
    return did;
}

/* ---- receiving --------------------------------------------------------------------------------- */

static void handle_tasks(comm_state *cs, unsigned char *buf, size_t len, const tide_wire_header *h)
{
    tide_rt *rt = cs->rt;
    /* Tasks move only between ranks that passed the same phase's first status allgather, and a
     * phase ends nowhere while one of its tasks travels. */
    if (!rt->running || h->phase != (uint32_t)rt->cphase)
        tide_fatal("rank %d sent tasks of its phase %u, this rank is %s phase %d", h->src,
                   h->phase + 1, rt->running ? "in" : "past", rt->cphase + 1);
    tide_rbuf *b = malloc(sizeof *b);
    tide_task **tasks = malloc(h->count * sizeof *tasks);
    if (!b || !tasks) tide_fatal("out of memory receiving %u tasks", h->count);
    atomic_init(&b->refs, 1);
    b->data = buf;
    b->len = len;
    char err[256];
    if (tide_wire_decode_tasks(b, h, tasks, rt->rank, err, sizeof err) != TIDE_OK)
        tide_fatal("malformed task message from rank %d: %s", h->src, err);
    for (uint32_t i = 0; i < h->count; i++) {
        if (tasks[i]->origin != h->src)
            tide_fatal("rank %d sent a task of rank %d", h->src, tasks[i]->origin);
        tide_queue_push(&rt->remote, tasks[i]);
    }
    rt->n_received += h->count;
    free(tasks);
    tide_rbuf_release(b);
    tide_workers_wake(rt);
}

static void handle_result(comm_state *cs, unsigned char *buf, const tide_wire_header *h)
{
    tide_rt *rt = cs->rt;
    char err[256];
    int origin;
    uint64_t seq;
    if (tide_wire_result_id(buf, h, &origin, &seq, err, sizeof err) != TIDE_OK)
        tide_fatal("malformed result from rank %d: %s", h->src, err);
    if (origin != rt->rank)
        tide_fatal("rank %d sent this rank the result of a task of rank %d", h->src, origin);
    tide_task *t = inflight_take(rt->inflight, seq);
    if (!t) {
        if (!tide_replica_result(rt, buf, h, seq))
            tide_fatal("rank %d returned a result for task %d:%llu, which is not awaiting one",
                       h->src, origin, (unsigned long long)seq);
        free(buf);
        return;
    }
    if (tide_wire_apply_result(buf, h, t, err, sizeof err) != TIDE_OK)
        tide_fatal("malformed result from rank %d: %s", h->src, err);
    free(buf);
    rt->L_offloaded += t->exec_time;
    tide_predict_record_time(t);
    if (t->exec_time > rt->offload_task_max) rt->offload_task_max = t->exec_time;
    tide_task_free(t);
    tide_task_completed(rt);
}

static bool poll_incoming(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    bool did = false;
    for (int k = 0; k < 64; k++) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        MPI_Improbe(MPI_ANY_SOURCE, TAG_MSG, rt->data_comm, &flag, &msg, &st);
        if (!flag) break;
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        unsigned char *buf = malloc(count > 0 ? (size_t)count : 1);
        if (!buf) tide_fatal("out of memory for a %d-byte message", count);
        MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        tide_wire_header h;
        char err[256];
        if (tide_wire_check_header(buf, (size_t)count, &h, err, sizeof err) != TIDE_OK)
            tide_fatal("malformed message from rank %d: %s", st.MPI_SOURCE, err);
        if (h.src != st.MPI_SOURCE)
            tide_fatal("message from rank %d claims to come from rank %d", st.MPI_SOURCE, h.src);
        if (h.kind == TIDE_MSG_TASKS) {
            handle_tasks(cs, buf, (size_t)count, &h);
        } else if (h.kind == TIDE_MSG_RESULT) {
            handle_result(cs, buf, &h);
        } else {
            tide_control msg;
            memcpy(&msg, buf + sizeof(tide_wire_header), sizeof msg);
            free(buf);
            if (msg.op >= TIDE_LB_OP_ENGINE) tide_replica_control(rt, h.src, &msg);
            else tide_lb_control(rt, h.src, &msg);
        }
        did = true;
    }
    return did;
}

/* ---- phase protocol ---------------------------------------------------------------------------- */

static void fill_record(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    tide_rank_record *r = &cs->mine;
    memset(r, 0, sizeof *r);
    double last = 0;
    r->task_max = rt->offload_task_max;
    r->L = rt->L_offloaded;
    for (int i = 0; i < rt->threads; i++) {
        tide_worker_slot *s = &rt->slots[i];
        r->L += s->L_local;
        if (s->executed && s->last_done > last) last = s->last_done;
        if (s->task_max > r->task_max) r->task_max = s->task_max;
    }
    r->W = last > 0 ? last - rt->phase_start : 0;
    r->L_pred = rt->L_pred;
    r->L_unc = rt->L_unc;
    r->pred_source = rt->pred_source;
    r->pred_model = rt->pred_model;
    r->time = tide_now() - rt->phase_start;
    r->tasks = (double)rt->phase_tasks;
    r->offloaded = (double)rt->n_offloaded;
    r->received = (double)(rt->n_received - rt->n_cancelled);
    r->cancelled = (double)rt->n_cancelled;
    r->bytes_sent = (double)rt->bytes_sent;
}

static bool test_coll(comm_state *cs)
{
    int flag = 0;
    MPI_Test(&cs->coll_req, &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* This rank's own work of the phase that is not over: tasks not completed, and replicas whose
 * holder has not answered yet (a copy may still run there, though the original completed here:
 * the phase must not end while it does, or the holder's records would race with its worker). */
static long own_open(tide_rt *rt)
{
    return atomic_load_explicit(&rt->outstanding, memory_order_acquire) +
           (long)tide_replica_open(rt);
}

static void allgather_status(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    tide_rank_status *st = &cs->my_status;
    st->ntasks = (double)rt->phase_tasks;
    st->L_pred = rt->L_pred;
    st->queued = (double)atomic_load(&rt->local.count);
    st->queued_in = (double)atomic_load(&rt->remote.count);
    st->outstanding = (double)own_open(rt);
    st->task_pred = rt->task_pred_ready;
    st->L_unc = rt->L_unc;
    st->phase = cs->nphases + 1;
    st->finalizing = 0;
    MPI_Iallgather(st, TIDE_STATUS_DOUBLES, MPI_DOUBLE, cs->all_status, TIDE_STATUS_DOUBLES,
                   MPI_DOUBLE, rt->coll_comm, &cs->coll_req);
}

/* ---- phase agreement ------------------------------------------------------------------------- */

static bool same_step(const tide_rank_status *a, const tide_rank_status *b)
{
    return a->phase == b->phase && a->finalizing == b->finalizing;
}

static void describe_step(const tide_rank_status *s, char *out, size_t len)
{
    if (s->finalizing) snprintf(out, len, "in tide_finalize after %.0f phases", s->phase);
    else snprintf(out, len, "in phase %.0f", s->phase);
}

static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len += w > 0 ? (size_t)w : 0;
}

/* Every rank finds the same mismatch in the same records; rank 0 says it, in one line, and ends
 * the job. "The others" are the ranks at the most common step (ties: the lowest rank's). */
static _Noreturn void phase_mismatch(comm_state *cs)
{
    const tide_rank_status *all = cs->all_status;
    int n = cs->rt->size, ref = 0, nref = 0, listed = 0;
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (int j = 0; j < n; j++) same += same_step(&all[i], &all[j]);
        if (same > nref) nref = same, ref = i;
    }
    char msg[512] = "", step[64];
    size_t len = 0;
    for (int i = 0; i < n && listed < 4; i++) {
        if (same_step(&all[i], &all[ref])) continue;
        describe_step(&all[i], step, sizeof step);
        append(msg, sizeof msg, &len, "%srank %d is %s", listed++ ? ", " : "", i, step);
    }
    if (n - nref > listed) append(msg, sizeof msg, &len, ", and %d more ranks", n - nref - listed);
    describe_step(&all[ref], step, sizeof step);
    if (nref > 1) append(msg, sizeof msg, &len, ", the others %s", step);
    else append(msg, sizeof msg, &len, ", rank %d %s", ref, step);
    if (cs->rt->rank == 0) {
        fprintf(stderr,
                "tide: phase mismatch: %s (phase N is a rank's N-th tide_taskwait; every rank "
                "must call it equally often)\n",
                msg);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 70);
    }
    /* The other ranks stay quiet, so that the line appears once: rank 0's abort ends them, and
     * should it not come they abort themselves. */
    sleep(10);
    MPI_Abort(MPI_COMM_WORLD, 70);
    abort();
}

/* After each status allgather: every rank must be at the same step. */
static void check_phases(comm_state *cs)
{
    for (int i = 1; i < cs->rt->size; i++)
        if (!same_step(&cs->all_status[i], &cs->all_status[0])) phase_mismatch(cs);
}

static void run_begin(comm_state *cs, const tide_rank_status *all)
{
    tide_rt *rt = cs->rt;
    cs->state = PH_RUN;
    tide_lb_phase_begin(rt, all);
    atomic_store_explicit(&rt->plan_ready, cs->nphases + 1, memory_order_release);
    /* Only workers held back for the plan need waking (tasks arriving wake them themselves);
     * a needless broadcast costs more than an empty phase's whole protocol. */
    if (tide_lb_phase_sync(rt) && atomic_load(&rt->local.count) > 0) tide_workers_wake(rt);
    cs->next_round = tide_now() + 1e-6 * rt->cfg.round_us;
}

static void gather_records(comm_state *cs)
{
    fill_record(cs);
    MPI_Iallgather(&cs->mine, TIDE_RECORD_DOUBLES, MPI_DOUBLE, cs->all, TIDE_RECORD_DOUBLES,
                   MPI_DOUBLE, cs->rt->coll_comm, &cs->coll_req);
    cs->state = PH_GATHER;
}

static void phase_finish(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    if (tide_stats_add_phase(&rt->log, cs->all) != TIDE_OK)
        tide_fatal("out of memory recording phase statistics");
    tide_stats_compute(&rt->log, rt->log.nphases - 1, rt->threads, rt->rank, &rt->last);
    tide_predict_phase_ended();
    rt->running = false;
    cs->state = PH_IDLE;
    cs->nphases++;
    atomic_store_explicit(&rt->phase_done, cs->nphases, memory_order_release);
    tide_workers_wake(rt);
    /* The application runs again: the model learns (and may retrain) meanwhile. */
    tide_predict_observe(rt, cs->all[rt->rank].L);
}

static bool all_done(const comm_state *cs)
{
    for (int i = 0; i < cs->rt->size; i++)
        if (cs->all_status[i].outstanding != 0) return false;
    return true;
}

static bool phase_step(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    /* Not while records are gathered: every rank's work is done, and a steal request sent then
     * could still be in flight when its target leaves tide_finalize. */
    if (rt->running && cs->state != PH_START_SYNC && cs->state != PH_GATHER) tide_lb_progress(rt);
    switch (cs->state) {
    case PH_IDLE:
        if (atomic_load_explicit(&rt->phase_requested, memory_order_acquire) <= cs->nphases)
            return false;
        rt->n_offloaded = rt->n_received = rt->n_cancelled = 0;
        rt->bytes_sent = 0;
        rt->L_offloaded = rt->offload_task_max = 0;
        tide_predict_phase(rt);
        rt->cphase = cs->nphases;
        rt->running = true;
        if (tide_lb_phase_sync(rt)) {
            allgather_status(cs);
            cs->state = PH_START_SYNC;
        } else {
            run_begin(cs, NULL);
        }
        return true;
    case PH_START_SYNC:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        run_begin(cs, cs->all_status);
        return true;
    case PH_RUN: {
        bool mine_done = own_open(rt) == 0;
        if (!tide_lb_rounds(rt)) {
            if (!mine_done) return false;
            allgather_status(cs);
            cs->state = PH_END;
            return true;
        }
        /* A rank whose own tasks are done joins the next round at once: when it is the last,
         * that round ends the phase without waiting for the interval. */
        if (!mine_done && tide_now() < cs->next_round) return false;
        allgather_status(cs);
        cs->state = PH_ROUND;
        return true;
    }
    case PH_ROUND:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        if (all_done(cs)) { /* every rank saw the same round: all leave together */
            gather_records(cs);
            return true;
        }
        tide_lb_round(rt, cs->all_status);
        cs->state = PH_RUN;
        cs->next_round = tide_now() + 1e-6 * rt->cfg.round_us;
        return true;
    case PH_END:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        gather_records(cs);
        return true;
    case PH_GATHER:
        if (!test_coll(cs)) return false;
        phase_finish(cs);
        return true;
    }
    return false;
}

/* ---- the loop ---------------------------------------------------------------------------------- */

/* The body of a thread that only tries the pinning. */
static void *try_cpu(void *arg)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*(int *)arg, &set);
    *(int *)arg = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    return NULL;
}

/* "0-3,8" for a CPU set. */
static void format_cpus(const cpu_set_t *set, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set))) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set)) last++;
        int w = last > c ? snprintf(out + n, len - n, "%s%d-%d", n ? "," : "", c, last)
                         : snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
        n += w > 0 ? (size_t)w : 0;
    }
}

int tide_comm_cpu_check(const tide_rt *rt)
{
    int cpu = rt->cfg.comm_cpu;
    if (cpu < 0) return TIDE_OK; /* not pinned, or `last`: a CPU of the rank's own mask */
    /* Tried on a thread of its own: the kernel, not the rank's mask, knows which CPUs exist and
     * which the process may use (its cpuset). */
    int rc = cpu;
    pthread_t t;
    int created = pthread_create(&t, NULL, try_cpu, &rc);
    if (created) return tide_fail(TIDE_ERR_STATE, "cannot start a thread: %s", strerror(created));
    pthread_join(t, NULL);
    if (rc == 0) return TIDE_OK;
    cpu_set_t mask;
    char cpus[256] = "?";
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) format_cpus(&mask, cpus, sizeof cpus);
    return tide_fail(TIDE_ERR_CONFIG,
                     "TIDE_COMM_CPU='%d' is invalid: rank %d cannot run on CPU %d (%s); expected "
                     "-1, 'last' or a CPU it may use (its affinity mask: %s)",
                     cpu, rt->rank, cpu, strerror(rc), cpus);
}

static void pin_self(tide_rt *rt)
{
    int cpu = rt->cfg.comm_cpu;
    if (cpu == -1) return;
    cpu_set_t set;
    if (cpu == TIDE_COMM_CPU_LAST) {
        /* The thread inherited the rank's mask: take its highest CPU. */
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
                if (CPU_ISSET(c, &set)) cpu = c;
    }
    int rc = cpu < 0 ? EINVAL : 0;
    if (!rc) {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    if (rc)
        fprintf(stderr, "tide: rank %d: cannot pin the comm thread to CPU %d: %s\n", rt->rank,
                cpu, strerror(rc));
    else if (rt->cfg.verbose)
        fprintf(stderr, "tide: rank %d: comm thread pinned to CPU %d\n", rt->rank, cpu);
}

static void idle_sleep(tide_rt *rt, long us)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += us * 1000;
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_mutex_lock(&rt->idle_lock);
    /* A wake that came while this thread was busy (a taskwait starting, the last task done, a
     * cancel to send) is not lost: it cuts the next sleep short. */
    if (!rt->comm_wake_pending && !atomic_load(&rt->stop) &&
        atomic_load(&rt->results.count) == 0)
        pthread_cond_timedwait(&rt->comm_cv, &rt->idle_lock, &ts);
    rt->comm_wake_pending = false;
    pthread_mutex_unlock(&rt->idle_lock);
}

void tide_comm_call(tide_rt *rt, void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&rt->idle_lock);
    rt->call_fn = fn;
    rt->call_arg = arg;
    rt->call_done = false;
    atomic_store_explicit(&rt->call_pending, true, memory_order_release);
    rt->comm_wake_pending = true;
    pthread_cond_signal(&rt->comm_cv);
    while (!rt->call_done) pthread_cond_wait(&rt->call_cv, &rt->idle_lock);
    pthread_mutex_unlock(&rt->idle_lock);
}

/* A tide_comm_call, if one waits and no phase runs (the caller is outside tide_taskwait, so none
 * starts meanwhile). One atomic load per turn when there is none. */
static bool run_call(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    if (cs->state != PH_IDLE || !atomic_load_explicit(&rt->call_pending, memory_order_acquire))
        return false;
    pthread_mutex_lock(&rt->idle_lock);
    void (*fn)(void *) = rt->call_fn;
    void *arg = rt->call_arg;
    pthread_mutex_unlock(&rt->idle_lock);
    fn(arg);
    pthread_mutex_lock(&rt->idle_lock);
    atomic_store_explicit(&rt->call_pending, false, memory_order_relaxed);
    rt->call_done = true;
    pthread_cond_broadcast(&rt->call_cv);
    pthread_mutex_unlock(&rt->idle_lock);
    return true;
}

void tide_comm_wake(tide_rt *rt)
{
    pthread_mutex_lock(&rt->idle_lock);
    rt->comm_wake_pending = true;
    pthread_cond_signal(&rt->comm_cv);
    pthread_mutex_unlock(&rt->idle_lock);
}

/* tide_finalize: a rank leaves only when its own sends completed and every rank got there, so
 * that a message still travelling (a late result, a stale request) always finds a receiver.
 * "Got there" is a status allgather marked finalizing: a rank still running phases meets it
 * with its own, and the phase check names the mismatch. */
static bool closing_done(comm_state *cs)
{
    tide_rt *rt = cs->rt;
    if (!cs->final_posted) {
        if (cs->nsends || atomic_load(&rt->results.count) || tide_replica_open(rt)) return false;
        rt->stopping = true;
        cs->my_status = (tide_rank_status){.phase = cs->nphases, .finalizing = 1};
        MPI_Iallgather(&cs->my_status, TIDE_STATUS_DOUBLES, MPI_DOUBLE, cs->all_status,
                       TIDE_STATUS_DOUBLES, MPI_DOUBLE, rt->coll_comm, &cs->final_req);
        cs->final_posted = true;
        return false;
    }
    int flag = 0;
    MPI_Test(&cs->final_req, &flag, MPI_STATUS_IGNORE);
    if (flag && !cs->final_checked) {
        check_phases(cs);
        cs->final_checked = true;
    }
    return flag && cs->nsends == 0;
}

static void *comm_main(void *arg)
{
    comm_state *cs = arg;
    tide_rt *rt = cs->rt;
    pin_self(rt);
    /* The kernel's default 50 us timer slack turns a 1 us back-off sleep into ~100 us. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    int empty = 0;
    long sleep_us = 1;
    for (;;) {
        bool did = poll_incoming(cs);
        did |= send_results(cs);
        did |= phase_step(cs);
        did |= run_call(cs);
        did |= send_outgoing(cs);
        did |= tide_replica_flush_cancels(rt);
        did |= complete_sends(cs);
        if (did) {
            empty = 0;
            sleep_us = 1;
            continue;
        }
        if (atomic_load(&rt->stop) && cs->state == PH_IDLE && closing_done(cs)) break;
        if (++empty <= rt->cfg.poll_spin) continue;
        idle_sleep(rt, sleep_us);
        if (sleep_us < rt->cfg.poll_sleep_max_us) sleep_us *= 2;
        if (sleep_us > rt->cfg.poll_sleep_max_us) sleep_us = rt->cfg.poll_sleep_max_us;
    }
    return NULL;
}

int tide_comm_start(tide_rt *rt)
{
    comm_state *cs = calloc(1, sizeof *cs);
    rt->inflight = calloc(1, sizeof *rt->inflight);
    rt->outgoing = calloc((size_t)rt->size, sizeof *rt->outgoing);
    if (cs) {
        cs->all_status = calloc((size_t)rt->size, sizeof *cs->all_status);
        cs->all = calloc((size_t)rt->size, sizeof *cs->all);
    }
    if (!cs || !rt->inflight || !rt->outgoing || !cs->all_status || !cs->all) {
        if (cs) free(cs->all_status), free(cs->all);
        free(cs);
        free(rt->inflight);
        free(rt->outgoing);
        return tide_fail(TIDE_ERR_NOMEM, "out of memory starting the comm thread");
    }
    for (int i = 0; i < rt->size; i++) tide_queue_init(&rt->outgoing[i]);
    cs->rt = rt;
    cs->state = PH_IDLE;
    the_state = cs; /* before the thread exists: it reads the_state when it sends */
    int rc = pthread_create(&rt->comm, NULL, comm_main, cs);
    if (rc) {
        the_state = NULL;
        free(cs->all_status);
        free(cs->all);
        free(cs);
        return tide_fail(TIDE_ERR_STATE, "cannot start the comm thread: %s", strerror(rc));
    }
    return TIDE_OK;
}

void tide_comm_stop(tide_rt *rt)
{
    atomic_store(&rt->stop, true);
    tide_comm_wake(rt);
    pthread_join(rt->comm, NULL);
    comm_state *cs = the_state;
    the_state = NULL;
    if (rt->inflight->count)
        tide_fatal("%zu offloaded tasks never got their result", rt->inflight->count);
    tide_replica_finalize(rt);
    free(rt->inflight->buckets);
    free(rt->inflight);
    for (int i = 0; i < rt->size; i++) tide_queue_destroy(&rt->outgoing[i]);
    free(rt->outgoing);
    free(cs->reqs);
    free(cs->slots);
    free(cs->done_idx);
    free(cs->all_status);
    free(cs->all);
    free(cs);
}
