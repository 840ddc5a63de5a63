/* Speculative replication. A replicated task stays in its origin's local queue while a copy
 * runs on another rank (the holder). Exactly one copy's outputs reach the application:
 *   - a worker that pops the original runs it; the holder is asked to cancel its copy, and if
 *     the copy ran anyway its result is discarded;
 *   - a result that arrives while the original is still queued takes it out of the queue (under
 *     the queue lock, so no worker can start it any more) and is applied.
 * Every replica gets exactly one answer from its holder, a result or a cancel
 * acknowledgement, and only then leaves the origin's replica table: the table's reference keeps
 * the task alive until then. tide_finalize waits until the table is empty. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rep_entry {
    uint64_t seq;
    tide_task *task;
    struct rep_entry *next;
} rep_entry;

#define REP_BUCKETS 1024

typedef struct tide_replicas {
    rep_entry *buckets[REP_BUCKETS];
    size_t open;
} tide_replicas;

static tide_replicas *get(tide_rt *rt)
{
    if (!rt->replicas) {
        rt->replicas = calloc(1, sizeof *rt->replicas);
        if (!rt->replicas) tide_fatal("out of memory for the replica table");
    }
    return rt->replicas;
}

static void table_put(tide_replicas *r, tide_task *t)
{
    rep_entry *e = malloc(sizeof *e);
    if (!e) tide_fatal("out of memory for the replica table");
    e->seq = t->seq;
    e->task = t;
    e->next = r->buckets[t->seq % REP_BUCKETS];
    r->buckets[t->seq % REP_BUCKETS] = e;
    r->open++;
}

static tide_task *table_take(tide_replicas *r, uint64_t seq)
{
    for (rep_entry **p = &r->buckets[seq % REP_BUCKETS]; *p; p = &(*p)->next)
        if ((*p)->seq == seq) {
            rep_entry *e = *p;
            tide_task *t = e->task;
            *p = e->next;
            free(e);
            r->open--;
            return t;
        }
    return NULL;
}

typedef struct replication {
    tide_rt *rt;
    int dest, n, done;
} replication;

/* Copies one task into a message, under the queue lock: no worker can start (and write to) a
 * task while it is packed. Replicas go through the transport's in-flight bound like offloaded
 * tasks: when it is reached, no more copies this time. */
static bool replicate_one(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    replication *r = arg;
    tide_rt *rt = r->rt;
    if (r->done >= r->n) return false;
    tide_fnid id;
    if (t->replicated || t->pinned || tide_fnid_of(t->fn, &id) != TIDE_OK) return true;
    size_t len = sizeof(tide_wire_header) + tide_wire_task_size(t);
    if (len > (size_t)INT32_MAX) return true;
    if (!tide_transport_fits(rt, len)) return false;
    unsigned char *buf = malloc(len);
    if (!buf) return false;
    tide_wire_put_task(buf + sizeof(tide_wire_header), t, id);
    tide_wire_put_header(buf, TIDE_MSG_TASKS, 1, (uint32_t)rt->cphase,
                         len - sizeof(tide_wire_header), rt->rank);
    t->replicated = true;
    t->holder = r->dest;
    atomic_store(&t->refs, 2);
    table_put(get(rt), t);
    tide_transport_send(rt, r->dest, buf, len);
    if (rt->trace) tide_trace_replica(rt->trace, rt->cphase, r->dest, t->seq);
    r->done++;
    rt->n_replicated++;
    return true;
}

int tide_replicate_tasks(tide_rt *rt, int dest, int n)
{
    if (dest == rt->rank || dest < 0 || dest >= rt->size || n <= 0) return 0;
    replication r = {rt, dest, n, 0};
    tide_queue_visit(&rt->local, true, replicate_one, &r);
    return r.done;
}

bool tide_replica_result(tide_rt *rt, const unsigned char *buf, const tide_wire_header *h,
                         uint64_t seq)
{
    if (!rt->replicas) return false;
    tide_task *t = table_take(rt->replicas, seq);
    if (!t) return false;
    if (h->src != t->holder)
        tide_fatal("rank %d answered the replica of task %llu held by rank %d", h->src,
                   (unsigned long long)seq, t->holder);
    if (tide_queue_remove(&rt->local, t)) { /* the original never started: this copy wins */
        tide_result_apply(rt, t, buf, h);
        rt->n_offloaded++;
        tide_task_release(t); /* the queue's reference */
        tide_task_completed(rt);
    }
    tide_task_release(t); /* the table's reference */
    return true;
}

static void send_cancel(tide_rt *rt, uint64_t seq, int holder)
{
    tide_control c = {TIDE_CTRL_CANCEL, (uint32_t)rt->cphase, 0, seq};
    tide_send_control(rt, holder, &c);
}

bool tide_replica_flush_cancels(tide_rt *rt)
{
    return tide_cancels_drain(rt, send_cancel) > 0;
}

typedef struct replica_id {
    int origin;
    uint64_t seq;
} replica_id;

static bool is_replica(const tide_task *t, const void *arg)
{
    const replica_id *id = arg;
    return t->origin == id->origin && t->seq == id->seq;
}

void tide_replica_control(tide_rt *rt, int src, const tide_control *msg)
{
    if (msg->op == TIDE_CTRL_CANCEL) {
        /* Holder: drop the copy if no worker took it; otherwise its result answers. */
        replica_id id = {src, msg->seq};
        tide_task *t = tide_queue_remove_if(&rt->remote, is_replica, &id);
        if (!t) return;
        tide_task_free(t);
        rt->n_cancelled++; /* arrived, but not executed here: not `received` in the stats */
        tide_control ack = {TIDE_CTRL_CANCEL_ACK, msg->phase, 0, msg->seq};
        tide_send_control(rt, src, &ack);
    } else if (msg->op == TIDE_CTRL_CANCEL_ACK) {
        tide_task *t = rt->replicas ? table_take(rt->replicas, msg->seq) : NULL;
        if (!t)
            tide_fatal("rank %d acknowledged a cancel of task %llu, which has no replica", src,
                       (unsigned long long)msg->seq);
        tide_task_release(t);
    } else {
        tide_fatal("unknown engine control operation %u from rank %d", msg->op, src);
    }
}

size_t tide_replica_open(const tide_rt *rt)
{
    return rt->replicas ? rt->replicas->open : 0;
}

void tide_replica_finalize(tide_rt *rt)
{
    tide_replicas *r = rt->replicas;
    if (!r) return;
    if (r->open) tide_fatal("%zu replicas never got an answer", r->open);
    free(r);
    rt->replicas = NULL;
}
