/* Workers: the OpenMP threads of a taskwait. They run received tasks first (another rank waits
 * for them), then own tasks, and sleep on a condition variable when both queues are empty, so
 * that an idle rank costs no CPU while it waits for the end of the phase. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

long tide_task_completed(tide_rt *rt)
{
    bool alone = rt->threads == 1 && atomic_load_explicit(&rt->inline_now, memory_order_relaxed);
    long left = tide_outstanding_add(rt, alone, -1);
    if (left < 0) tide_fatal("a task completed twice (outstanding count %ld)", left);
    return left;
}

/* The cancels workers ask for, sent by the comm thread (replica.c): an own replicated task
 * started here, so its copy elsewhere is not needed. */
void tide_cancels_init(tide_rt *rt)
{
    pthread_mutex_init(&rt->cancels.lock, NULL);
}

void tide_cancels_destroy(tide_rt *rt)
{
    pthread_mutex_destroy(&rt->cancels.lock);
    free(rt->cancels.seq);
    free(rt->cancels.dest);
}

static void request_cancel(tide_rt *rt, const tide_task *t)
{
    tide_cancels *c = &rt->cancels;
    pthread_mutex_lock(&c->lock);
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        uint64_t *s = realloc(c->seq, cap * sizeof *s);
        if (s) c->seq = s;
        int *d = realloc(c->dest, cap * sizeof *d);
        if (d) c->dest = d;
        if (s && d) c->cap = cap;
    }
    /* Without its cancel the holder might never answer (if it already left its last
     * taskwait), and the origin would wait for the answer forever: fail loudly instead. */
    if (c->n == c->cap) tide_fatal("out of memory for a replica cancel");
    c->seq[c->n] = t->seq;
    c->dest[c->n] = t->holder;
    c->n++;
    pthread_mutex_unlock(&c->lock);
    tide_comm_wake(rt);
}

size_t tide_cancels_drain(tide_rt *rt, void (*send)(tide_rt *, uint64_t seq, int holder))
{
    tide_cancels *c = &rt->cancels;
    pthread_mutex_lock(&c->lock);
    size_t n = c->n;
    for (size_t i = 0; i < n; i++)
        send(rt, c->seq[i], c->dest[i]);
    c->n = 0;
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* Whether the thread that just ran a task in a protocol phase will run the comm loop's next turn
 * itself: the application thread (slot 0) where it drives (TIDE_WAIT_PROGRESS) and nothing
 * else waits to run, so that a result to send or the phase's end needs no wake of the comm
 * thread. Where tasks wait it would run them first: the comm thread must send meanwhile. */
static bool drives_next(tide_rt *rt, int slot)
{
    return slot == 0 && rt->driven &&
           !atomic_load_explicit(&rt->inline_now, memory_order_relaxed) &&
           atomic_load_explicit(&rt->remote.count, memory_order_relaxed) == 0 &&
           atomic_load_explicit(&rt->local.count, memory_order_relaxed) == 0;
}

double tide_task_execute(tide_rt *rt, tide_task *t, int slot, double since)
{
    if (t->replicated) {
        request_cancel(rt, t);
        since = 0; /* the cancel (a lock, maybe a wake) is not this task's time */
    }
    double t0 = since > 0 ? since : tide_now();
    t->fn(t->argv);
    double t1 = tide_now();
    t->exec_time = t1 - t0;
    if (rt->trace) tide_trace_task(rt->trace, slot, t, rt->phase, t0, t1);
    tide_worker_slot *s = &rt->slots[slot];
    s->last_done = t1;
    s->executed++;
    s->L_run += t->exec_time;
    if (t->exec_time > s->task_max) s->task_max = t->exec_time;
    if (t->remote) {
        tide_wire_finish_result(t, (uint32_t)rt->phase, rt->rank);
        tide_rbuf_release(t->rbuf); /* inputs are no longer needed; free the message early */
        t->rbuf = NULL;
        tide_queue_push(&rt->results, t);
        if (!drives_next(rt, slot)) tide_comm_wake(rt);
        return 0; /* a wake may cost a system call: not the next task's time */
    }
    s->L_local += t->exec_time;
    tide_predict_record_time(t);
    /* The next task may start at t1 only where nothing but this bookkeeping and a pop lies
     * between: in an inline phase (in a protocol phase the comm thread may hold the queue's
     * lock for a whole walk of it), without a trace (whose spans stay each task's own), after
     * freeing a block of the recycled size (a larger one's free may be a system call). */
    bool chain =
        !rt->trace && !t->large && atomic_load_explicit(&rt->inline_now, memory_order_relaxed);
    tide_task_release(t);
    if (tide_task_completed(rt) != 0) return chain ? t1 : 0;
    /* The phase's last own task: whoever ends the phase must know. With inline phases that is
     * the application thread, which runs the worker loop too: workers asleep must leave it
     * (a lone worker is this thread: no fence to pay). */
    if (atomic_load_explicit(&rt->inline_now, memory_order_relaxed)) {
        if (rt->threads > 1) tide_workers_wake(rt);
    } else if (!drives_next(rt, slot))
        tide_comm_wake(rt);
    return 0;
}

/* Inline phases (no task moves) are over for the workers once every own task completed; the
 * application thread then ends the phase. Otherwise the comm thread says so. */
static bool phase_over(tide_rt *rt, int target)
{
    if (atomic_load_explicit(&rt->inline_now, memory_order_relaxed))
        return atomic_load_explicit(&rt->outstanding, memory_order_acquire) == 0;
    return atomic_load_explicit(&rt->phase_done, memory_order_acquire) >= target;
}

/* A strategy that plans at phase start chooses among all of the phase's tasks: own tasks wait
 * until its plan is made, so that what moves is exactly what it chose (unless it plans while
 * they run: hold_own). */
static bool may_start_local(tide_rt *rt, int target)
{
    return !rt->hold_own || atomic_load_explicit(&rt->plan_ready, memory_order_acquire) >= target;
}

static void wait_for_work(tide_rt *rt, int target)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 2000000; /* a safety net only: arrivals and the phase end signal the cv */
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_mutex_lock(&rt->idle_lock);
    atomic_fetch_add(&rt->idle_workers, 1);
    atomic_thread_fence(memory_order_seq_cst);
    if (!phase_over(rt, target) && atomic_load(&rt->remote.count) == 0 &&
        (atomic_load(&rt->local.count) == 0 || !may_start_local(rt, target)))
        pthread_cond_timedwait(&rt->work_cv, &rt->idle_lock, &ts);
    atomic_fetch_sub(&rt->idle_workers, 1);
    pthread_mutex_unlock(&rt->idle_lock);
}

/* ---- dealt phases ------------------------------------------------------------------------------
 *
 * Several workers taking an inline phase's tasks one at a time from one queue pass its lock and
 * its lines from core to core at every task (Task Bench's `trivial` on one rank x 2 workers: 4x
 * a lone worker's time a task). Where a phase has at least DEAL_MIN tasks a worker, the
 * application thread deals them round-robin in queue order (priority order) to the workers'
 * shares before they start, and each worker claims the next task of a share with one atomic
 * increment on that share's own cache line: its own share's first, then, once it is empty, the
 * others' in turn. A task is claimed only when its worker is about to run it, so no worker holds
 * tasks back while another idles (test_inline_spread.c, also with the long tasks a worker's
 * stride apart, which the deal gives to one share). A phase with fewer tasks stays in the queue:
 * a task or two a worker costs what it did.
 *
 * A lone worker's inline phase is always dealt, to its one share: nothing else takes an inline
 * phase's tasks (no comm thread offloads them, none arrive), so it runs them in queue order
 * with a plain increment a task, where popping them took the queue's lock and unlinked each
 * (152 instructions of a one-task phase, Task Bench's `stencil_1d` on one rank). Where their
 * priorities are alike the admitted tasks go into the share without the queue
 * (tide_workers_deal_lone). In a protocol
 * phase every worker pops one task at a time: a task left in the queue may still be offloaded. */
enum { DEAL_MIN = 4 };

static bool deal_room(tide_deal *d, long n)
{
    if (d->cap >= n) return true;
    tide_task **at = realloc(d->at, (size_t)n * sizeof *at);
    if (!at) return false;
    d->at = at;
    d->cap = n;
    return true;
}

/* The workers' shares, allocated at the first dealt phase; false out of memory. */
static bool deal_alloc(tide_rt *rt)
{
    if (rt->deal) return true;
    rt->deal = aligned_alloc(TIDE_CACHELINE, (size_t)rt->threads * sizeof *rt->deal);
    if (!rt->deal) return false;
    memset(rt->deal, 0, (size_t)rt->threads * sizeof *rt->deal);
    return true;
}

bool tide_workers_deal_lone(tide_rt *rt, tide_task *first, long n)
{
    /* Every phase leaves the queue empty; a task still there would not be in the share. */
    if (atomic_load_explicit(&rt->local.count, memory_order_relaxed) != 0) return false;
    if (!deal_alloc(rt) || !deal_room(&rt->deal[0], n)) return false;
    tide_deal *d = &rt->deal[0];
    d->n = 0;
    for (tide_task *t = first; t; t = t->next) {
        if (t->priority != first->priority) { /* the queue orders them */
            d->n = 0;
            return false;
        }
        d->at[d->n++] = t;
    }
    atomic_store_explicit(&d->next, 0, memory_order_relaxed);
    return true;
}

bool tide_workers_deal(tide_rt *rt)
{
    int w = rt->threads;
    tide_queue *q = &rt->local;
    long n = atomic_load_explicit(&q->count, memory_order_relaxed);
    if (n < (w > 1 ? (long)DEAL_MIN * w : 1)) return false;
    if (!deal_alloc(rt)) return false; /* the queue serves, as with few tasks */
    long share = (n + w - 1) / w;
    for (int k = 0; k < w; k++)
        if (!deal_room(&rt->deal[k], share)) return false;
    for (int k = 0; k < w; k++)
        rt->deal[k].n = 0;
    /* (no worker runs yet, and nothing else takes an inline phase's tasks) */
    long i = 0;
    for (tide_task *t = tide_queue_take_all_locked(q); t; t = t->next, i++) {
        tide_deal *d = &rt->deal[i % w];
        d->at[d->n++] = t;
    }
    for (int k = 0; k < w; k++)
        atomic_store_explicit(&rt->deal[k].next, 0, memory_order_relaxed);
    return true;
}

/* The next task of an inline phase's shares for the worker in `slot`, or NULL: none is left. */
static tide_task *deal_claim(tide_rt *rt, int slot)
{
    if (rt->threads == 1) { /* the only claimant: no locked instruction */
        tide_deal *d = &rt->deal[0];
        long i = atomic_load_explicit(&d->next, memory_order_relaxed);
        if (i >= d->n) return NULL;
        atomic_store_explicit(&d->next, i + 1, memory_order_relaxed);
        return d->at[i];
    }
    for (int k = 0; k < rt->threads; k++) {
        tide_deal *d = &rt->deal[(slot + k) % rt->threads];
        if (atomic_load_explicit(&d->next, memory_order_relaxed) >= d->n) continue;
        long i = atomic_fetch_add_explicit(&d->next, 1, memory_order_relaxed);
        if (i < d->n) return d->at[i];
    }
    return NULL;
}

/* The worker loop of a dealt phase (an inline one: no task arrives, none leaves). */
static __attribute__((noinline)) void dealt_loop(tide_rt *rt, int slot, double since, int target)
{
    for (int empty = 0;;) {
        tide_task *t = deal_claim(rt, slot);
        if (t) {
            since = tide_task_execute(rt, t, slot, since);
            empty = 0;
            continue;
        }
        if (phase_over(rt, target)) return;
        since = 0;
        if (++empty > rt->cfg.poll_spin) wait_for_work(rt, target);
    }
}

void tide_worker_loop(tide_rt *rt, int slot, double since)
{
    int target = rt->phase + 1;
    if (__builtin_expect(rt->dealt, 0)) {
        dealt_loop(rt, slot, since, target);
        return;
    }
    int empty = 0;
    /* In a protocol phase the application thread (slot 0) runs the comm thread's turns whenever
     * it has nothing to run (TIDE_WAIT_PROGRESS, set by tide_taskwait), so that neither the
     * phase's start, nor a task's arrival or result, nor its end waits for the comm thread to
     * wake (a wake-up costs 5-50 us on a VM: docs/performance.md, section 15); it hands them
     * back when it starts a task. */
    bool drives = slot == 0 && rt->driven, driving = drives;
    tide_backoff backoff = {0};
    if (drives) tide_backoff_init(&backoff, rt->cfg.poll_spin, rt->cfg.poll_sleep_max_us);
    while (!phase_over(rt, target)) {
        tide_task *t = tide_queue_pop_front(&rt->remote);
        if (!t && may_start_local(rt, target)) t = tide_queue_pop_front(&rt->local);
        if (t) {
            if (driving) tide_comm_drive_end(rt, false);
            driving = false;
            since = tide_task_execute(rt, t, slot, since);
            empty = 0;
        } else if (drives) {
            since = 0;
            if (!driving) {
                driving = true;
                atomic_store_explicit(&rt->app_driving, true, memory_order_release);
                tide_backoff_busy(&backoff);
            }
            rt->drive_step(rt, &backoff);
        } else {
            since = 0; /* it found nothing: the next task starts at a reading of its own */
            if (++empty > rt->cfg.poll_spin) wait_for_work(rt, target);
        }
    }
    if (driving) tide_comm_drive_end(rt, true);
}
