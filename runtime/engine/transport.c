/* Transport: the data path of the comm thread. Sends in progress (bounded by
 * TIDE_MAX_INFLIGHT), tasks chosen to leave (one queue per destination), packing them into
 * messages (TIDE_OFFLOAD rr or packed) in the order the engine core's send scheduler decides
 * (tide_core_send.h, which tide-sim asks too), the table of offloaded tasks awaiting their result,
 * receiving and validating every message, and the one function that applies a result. Messages
 * this layer does not own (control messages, results of replicas) go to the handlers the comm
 * thread passes in (tide_dispatch), so the layers above it are called, never included. */
#include "internal.h"
#include "tide_core_send.h"
#include "tide_plan.h"

#include <stdlib.h>
#include <string.h>

#define TAG_MSG 7

/* Offloaded tasks awaiting their result, chained by seq through task->next. */
typedef struct inflight {
    tide_task **buckets;
    size_t nbuckets, count;
} inflight;

typedef struct send_slot {
    unsigned char *buf;
    size_t len;
    bool tasks; /* a message of offloaded tasks */
    bool burst; /* ... of a plan's burst (tide_drain_posted) */
} send_slot;

struct tide_transport {
    inflight waiting;     /* offloaded tasks awaiting their result */
    tide_queue *outgoing; /* size entries: tasks chosen to move to each rank */
    long noutgoing;       /* tasks in the outgoing queues */
    int next_dest;        /* where the next pass of task sends starts (round-robin) */
    MPI_Request *reqs;    /* sends in progress */
    send_slot *slots;
    int nsends, capsends;
    int *done_idx;
    tide_drain drain;     /* how fast a burst of task messages leaves (tide_plan.h) */
    double throttle_bw;   /* TIDE_THROTTLE_*: bytes/s this rank's task sends are held to, or 0 */
    double throttle_next; /* tide_now() before which no task message may be posted */
    bool warned_unmovable;
};

/* ---- the drain rate -------------------------------------------------------------------------- */

double tide_transport_send_bw(const tide_rt *rt)
{
    return tide_drain_rate(&rt->transport->drain);
}

double tide_transport_plan_moving(const tide_rt *rt)
{
    return tide_drain_busy(&rt->transport->drain) ? 1 : 0;
}

void tide_transport_phase_end(tide_rt *rt, double now, double *send_bw, double *sent_last)
{
    tide_transport *tp = rt->transport;
    double last;
    *send_bw = tide_drain_phase_end(&tp->drain, now, &last);
    *sent_last = last > 0 ? last - rt->phase_start : 0;
    tp->next_dest = 0; /* plans model each phase's sends from rank 0 on (plan_transfer.c) */
}

long tide_transport_outgoing(const tide_rt *rt)
{
    return rt->transport->noutgoing;
}

static void outgoing_push(tide_rt *rt, int dest, tide_task *t)
{
    tide_transport *tp = rt->transport;
    tide_queue_push(&tp->outgoing[dest], t);
    tp->noutgoing++;
    /* Only a plan's burst measures the rate a plan needs: reactive moves go to one partner at
     * a time, and drained 10-40x slower than the bursts on this machine (performance.md 13). */
    if (rt->lb.planning) tide_drain_waiting(&tp->drain, tide_now());
}

static void inflight_put(inflight *f, tide_task *t)
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

static tide_task *inflight_take(inflight *f, uint64_t seq)
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

/* ---- sending -----------------------------------------------------------------------------------
 */

static void post(tide_rt *rt, int dest, unsigned char *buf, size_t len, bool tasks)
{
    tide_transport *tp = rt->transport;
    if (tp->nsends == tp->capsends) {
        int cap = tp->capsends ? 2 * tp->capsends : 64;
        tp->reqs = realloc(tp->reqs, (size_t)cap * sizeof *tp->reqs);
        tp->slots = realloc(tp->slots, (size_t)cap * sizeof *tp->slots);
        tp->done_idx = realloc(tp->done_idx, (size_t)cap * sizeof *tp->done_idx);
        if (!tp->reqs || !tp->slots || !tp->done_idx) tide_fatal("out of memory for sends");
        tp->capsends = cap;
    }
    if (len > (size_t)INT32_MAX)
        tide_fatal("message of %zu bytes exceeds MPI's int count (split the task's data)", len);
    double t0 = rt->trace ? tide_now() : 0;
    MPI_Isend(buf, (int)len, MPI_BYTE, dest, TAG_MSG, rt->data_comm, &tp->reqs[tp->nsends]);
    if (rt->trace) tide_trace_send(rt->trace, dest, buf, len, t0, tide_now());
    tp->slots[tp->nsends] = (send_slot){buf, len, tasks, tasks && tide_drain_posted(&tp->drain)};
    tp->nsends++;
    rt->inflight_bytes += len;
    rt->bytes_sent += len;
}

void tide_transport_send(tide_rt *rt, int dest, unsigned char *buf, size_t len)
{
    post(rt, dest, buf, len, false);
}

void tide_send_control(tide_rt *rt, int dest, const tide_control *msg)
{
    size_t len = sizeof(tide_wire_header) + sizeof *msg;
    unsigned char *buf = malloc(len);
    if (!buf) tide_fatal("out of memory for a control message");
    tide_wire_put_header(buf, TIDE_MSG_CONTROL, 1, msg->phase, sizeof *msg, rt->rank);
    memcpy(buf + sizeof(tide_wire_header), msg, sizeof *msg);
    tide_transport_send(rt, dest, buf, len);
}

bool tide_transport_complete(tide_rt *rt)
{
    tide_transport *tp = rt->transport;
    if (!tp->nsends) return false;
    int ndone = 0;
    MPI_Testsome(tp->nsends, tp->reqs, &ndone, tp->done_idx, MPI_STATUSES_IGNORE);
    if (ndone <= 0 || ndone == MPI_UNDEFINED) return false;
    double now = 0;
    for (int k = 0; k < ndone; k++) {
        send_slot *s = &tp->slots[tp->done_idx[k]];
        rt->inflight_bytes -= s->len;
        if (s->tasks) {
            if (!now) now = tide_now();
            tide_drain_completed(&tp->drain, (double)s->len, now, s->burst);
        }
        free(s->buf);
        s->buf = NULL;
    }
    int w = 0;
    for (int i = 0; i < tp->nsends; i++)
        if (tp->slots[i].buf) {
            tp->reqs[w] = tp->reqs[i];
            tp->slots[w] = tp->slots[i];
            w++;
        }
    tp->nsends = w;
    return true;
}

bool tide_transport_fits(const tide_rt *rt, size_t len)
{
    return tide_send_fits((double)rt->inflight_bytes, (double)len, rt->cfg.max_inflight);
}

static size_t result_size(const tide_task *t)
{
    return t->result_len;
}

bool tide_transport_send_results(tide_rt *rt)
{
    bool did = false;
    while (atomic_load_explicit(&rt->results.count, memory_order_relaxed) > 0) {
        size_t len = tide_queue_front_size(&rt->results, result_size);
        if (!len || !tide_transport_fits(rt, len)) break;
        tide_task *t = tide_queue_pop_front(&rt->results);
        tide_transport_send(rt, t->origin, t->result, t->result_len);
        t->result = NULL; /* the send owns it now */
        tide_task_free(t);
        did = true;
    }
    return did;
}

/* ---- choosing what leaves -------------------------------------------------------------------- */

typedef struct selection {
    tide_rt *rt;
    const int32_t *dest;
    long n;
    int moved;
} selection;

/* dest names tasks by their position among the phase's submissions (tide_task.pos): the ones
 * that started meanwhile are no longer here. */
static bool select_one(tide_queue *q, tide_task *t, void *arg)
{
    selection *s = arg;
    if (t->pos < 0 || t->pos >= s->n) return true;
    int d = s->dest[t->pos];
    if (d == s->rt->rank || d < 0 || d >= s->rt->size || t->replicated || t->pinned) return true;
    tide_queue_unlink_locked(q, t);
    outgoing_push(s->rt, d, t);
    s->moved++;
    return true;
}

int tide_offload_selected(tide_rt *rt, const int32_t *dest, long n)
{
    selection s = {rt, dest, n, 0};
    tide_queue_visit(&rt->local, false, select_one, &s);
    return s.moved;
}

int tide_offload_tasks(tide_rt *rt, int dest, int n)
{
    if (dest == rt->rank || dest < 0 || dest >= rt->size || n <= 0) return 0;
    int taken = 0;
    tide_task *batch[64];
    while (taken < n) {
        int want = n - taken < 64 ? n - taken : 64;
        int got = tide_queue_take_back(&rt->local, batch, want);
        for (int i = 0; i < got; i++)
            outgoing_push(rt, dest, batch[i]);
        taken += got;
        if (got < want) break;
    }
    return taken;
}

/* The tasks the transport would send last are the back of the destination that holds the most
 * (sends go round-robin over the destinations). */
int tide_transport_reclaim(tide_rt *rt, int n)
{
    tide_transport *tp = rt->transport;
    int taken = 0;
    while (taken < n && tp->noutgoing > 0) {
        int from = -1;
        long most = 0;
        for (int d = 0; d < rt->size; d++) {
            long c = atomic_load_explicit(&tp->outgoing[d].count, memory_order_relaxed);
            if (tide_send_reclaim_prefers(c, most)) most = c, from = d;
        }
        tide_task *t;
        if (from < 0 || tide_queue_take_back(&tp->outgoing[from], &t, 1) != 1) break;
        tp->noutgoing--;
        tide_queue_push(&rt->local, t);
        taken++;
    }
    if (taken) {
        rt->n_reclaimed += taken;
        if (tp->noutgoing == 0) tide_drain_flowing(&tp->drain, tide_now());
        tide_workers_wake(rt);
    }
    return taken;
}

/* Tasks whose function has no portable identity cannot move: they go back to the local queue
 * (said once per rank, since this is a property of how the program was linked). */
static bool encodable(tide_rt *rt, tide_task *t, tide_fnid *id)
{
    int rc = tide_fnid_of(t->fn, id);
    if (rc == TIDE_OK && tide_wire_task_size(t) + sizeof(tide_wire_header) > (size_t)INT32_MAX)
        rc = tide_fail(TIDE_ERR_UNSUPPORTED, "its data exceeds MPI's 2 GiB message limit");
    if (rc == TIDE_OK) return true;
    if (!rt->transport->warned_unmovable)
        fprintf(stderr, "tide: rank %d: a task stays local: %s\n", rt->rank,
                tide_last_error_message());
    rt->transport->warned_unmovable = true;
    tide_queue_push(&rt->local, t);
    tide_workers_wake(rt); /* idle workers would otherwise find it only at their timeout */
    return false;
}

/* How many of a destination's waiting tasks the next message takes (tide_send_pack). Packing
 * pays for small tasks, whose per-message cost dominates; a huge package only adds page faults
 * (runtime/bench/micro_bandwidth.c). */
static bool measure_one(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    return tide_send_pack_add(arg, (double)tide_wire_task_size(t));
}

/* Sends at most one message to rank dest: one task (rr) or as many as the in-flight bound admits
 * (packed). Returns false when there was nothing to send or the bound is reached. */
static bool send_one_message(tide_rt *rt, int dest)
{
    tide_transport *tp = rt->transport;
    tide_queue *q = &tp->outgoing[dest];
    if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return false;
    double now = tp->throttle_bw > 0 ? tide_now() : 0;
    if (now && tide_send_throttled(now, tp->throttle_next)) return false;
    tide_send_pack p = tide_send_pack_begin(rt->cfg.offload == TIDE_OFFLOAD_PACKED,
                                            rt->cfg.pack_max, rt->cfg.max_inflight,
                                            sizeof(tide_wire_header), (double)rt->inflight_bytes);
    tide_queue_visit(q, false, measure_one, &p);
    if (p.n == 0) return false;
    tide_task *batch[TIDE_SEND_PACK_TASKS];
    tide_fnid ids[TIDE_SEND_PACK_TASKS];
    int got = 0;
    size_t len = (size_t)p.len;
    tp->noutgoing -= p.n;
    if (tp->noutgoing == 0) tide_drain_flowing(&tp->drain, now ? now : tide_now());
    for (int i = 0; i < p.n; i++) {
        tide_task *t = tide_queue_pop_front(q);
        /* Sized before encodable: a task that cannot move goes back to the local queue, where
         * a worker may run and free it at once. */
        size_t sz = tide_wire_task_size(t);
        if (encodable(rt, t, &ids[got]))
            batch[got++] = t;
        else
            len -= sz;
    }
    if (!got) return true;
    unsigned char *buf = malloc(len);
    if (!buf) tide_fatal("out of memory packing %zu bytes", len);
    size_t off = sizeof(tide_wire_header);
    for (int i = 0; i < got; i++) {
        off += tide_wire_put_task(buf + off, batch[i], ids[i]);
        inflight_put(&rt->transport->waiting, batch[i]);
    }
    tide_wire_put_header(buf, TIDE_MSG_TASKS, (uint32_t)got, (uint32_t)rt->cphase,
                         off - sizeof(tide_wire_header), rt->rank);
    post(rt, dest, buf, off, true);
    rt->n_offloaded += got;
    if (now)
        tp->throttle_next =
            tide_send_throttle_next(now, tp->throttle_next, (double)off, tp->throttle_bw);
    return true;
}

/* One message per destination per pass, from where the last passes left off (tide_send_pass). */
bool tide_transport_send_tasks(tide_rt *rt)
{
    tide_transport *tp = rt->transport;
    if (tp->noutgoing == 0) return false;
    bool did = false;
    tide_send_pass pass = tide_send_pass_begin(tp->next_dest, rt->size);
    for (int dest = pass.next; tp->noutgoing > 0 && tide_send_pass_try(&pass, dest);
         dest = pass.next)
        if (send_one_message(rt, dest)) {
            did = true;
            tide_send_pass_sent(&pass);
        }
    tp->next_dest = tide_send_pass_cursor(&pass);
    return did;
}

/* ---- receiving ---------------------------------------------------------------------------------
 */

static void handle_tasks(tide_rt *rt, unsigned char *buf, size_t len, const tide_wire_header *h)
{
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
    if (tide_wire_decode_tasks(b, h, tasks, err, sizeof err) != TIDE_OK)
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

void tide_result_apply(tide_rt *rt, tide_task *t, const unsigned char *buf,
                       const tide_wire_header *h)
{
    char err[256];
    if (tide_wire_apply_result(buf, h, t, err, sizeof err) != TIDE_OK)
        tide_fatal("malformed result from rank %d: %s", h->src, err);
    rt->L_offloaded += t->exec_time;
    if (t->exec_time > rt->offload_task_max) rt->offload_task_max = t->exec_time;
    tide_predict_record_time(t);
}

static void handle_result(tide_rt *rt, unsigned char *buf, const tide_wire_header *h,
                          const tide_dispatch *d)
{
    char err[256];
    int origin;
    uint64_t seq;
    if (tide_wire_result_id(buf, h, &origin, &seq, err, sizeof err) != TIDE_OK)
        tide_fatal("malformed result from rank %d: %s", h->src, err);
    if (origin != rt->rank)
        tide_fatal("rank %d sent this rank the result of a task of rank %d", h->src, origin);
    tide_task *t = inflight_take(&rt->transport->waiting, seq);
    if (!t) {
        if (!d->other_result(rt, buf, h, seq))
            tide_fatal("rank %d returned a result for task %d:%llu, which is not awaiting one",
                       h->src, origin, (unsigned long long)seq);
        free(buf);
        return;
    }
    tide_result_apply(rt, t, buf, h);
    free(buf);
    tide_task_free(t);
    tide_task_completed(rt);
}

bool tide_transport_poll(tide_rt *rt, const tide_dispatch *d)
{
    bool did = false;
    for (int k = 0; k < 64; k++) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        MPI_Improbe(MPI_ANY_SOURCE, TAG_MSG, rt->data_comm, &flag, &msg, &st);
        if (!flag) break;
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        double t0 = rt->trace ? tide_now() : 0;
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
            handle_tasks(rt, buf, (size_t)count, &h);
        } else if (h.kind == TIDE_MSG_RESULT) {
            handle_result(rt, buf, &h, d);
        } else {
            tide_control ctl;
            memcpy(&ctl, buf + sizeof(tide_wire_header), sizeof ctl);
            free(buf);
            d->control(rt, h.src, &ctl);
        }
        if (rt->trace) tide_trace_recv(rt->trace, &h, (size_t)count, t0, tide_now());
        did = true;
    }
    return did;
}

/* ---- collectives for strategies ------------------------------------------------------------- */

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

/* ---- life cycle --------------------------------------------------------------------------------
 */

int tide_transport_create(tide_rt *rt)
{
    tide_transport *tp = calloc(1, sizeof *tp);
    if (tp) tp->outgoing = calloc((size_t)rt->size, sizeof *tp->outgoing);
    if (!tp || !tp->outgoing) {
        free(tp);
        return tide_fail(TIDE_ERR_NOMEM, "out of memory starting the transport");
    }
    for (int i = 0; i < rt->size; i++)
        tide_queue_init(&tp->outgoing[i]);
    int slow = rt->cfg.throttle_rank;
    if (slow >= rt->size) {
        for (int i = 0; i < rt->size; i++)
            tide_queue_destroy(&tp->outgoing[i]);
        free(tp->outgoing);
        free(tp);
        return tide_fail(TIDE_ERR_CONFIG,
                         "TIDE_THROTTLE_RANK='%d' is invalid: the run has ranks 0 to %d (-1: none)",
                         slow, rt->size - 1);
    }
    if (slow == rt->rank) tp->throttle_bw = (double)rt->cfg.throttle_bw;
    rt->transport = tp;
    return TIDE_OK;
}

bool tide_transport_idle(const tide_rt *rt)
{
    return rt->transport->nsends == 0;
}

void tide_transport_destroy(tide_rt *rt)
{
    tide_transport *tp = rt->transport;
    if (!tp) return;
    if (tp->waiting.count)
        tide_fatal("%zu offloaded tasks never got their result", tp->waiting.count);
    free(tp->waiting.buckets);
    for (int i = 0; i < rt->size; i++)
        tide_queue_destroy(&tp->outgoing[i]);
    free(tp->outgoing);
    free(tp->reqs);
    free(tp->slots);
    free(tp->done_idx);
    free(tp);
    rt->transport = NULL;
}
