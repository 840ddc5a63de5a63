/* Workers: the OpenMP threads of a taskwait. They run received tasks first (another rank waits
 * for them), then own tasks, and sleep on a condition variable when both queues are empty, so
 * that an idle rank costs no CPU while it waits for the end of the phase. */
#include "internal.h"

#include <time.h>

void tide_workers_wake(tide_rt *rt)
{
    /* Pairs with the fence in wait_for_work: either the waker sees the worker idle, or the
     * worker sees what the waker published before calling (a store-load pair needs both). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&rt->idle_workers) == 0) return;
    pthread_mutex_lock(&rt->idle_lock);
    pthread_cond_broadcast(&rt->work_cv);
    pthread_mutex_unlock(&rt->idle_lock);
}

long tide_task_completed(tide_rt *rt)
{
    long left = atomic_fetch_sub_explicit(&rt->outstanding, 1, memory_order_release) - 1;
    if (left < 0) tide_fatal("a task completed twice (outstanding count %ld)", left);
    return left;
}

void tide_task_execute(tide_rt *rt, tide_task *t, int slot)
{
    if (t->replicated) tide_replica_local_start(rt, t);
    double t0 = tide_now();
    t->fn(t->argv);
    double t1 = tide_now();
    t->exec_time = t1 - t0;
    tide_worker_slot *s = &rt->slots[slot];
    s->last_done = t1;
    s->executed++;
    if (t->exec_time > s->task_max) s->task_max = t->exec_time;
    if (t->remote) {
        tide_wire_finish_result(t, (uint32_t)rt->phase, rt->rank);
        tide_rbuf_release(t->rbuf); /* inputs are no longer needed; free the message early */
        t->rbuf = NULL;
        tide_queue_push(&rt->results, t);
        tide_comm_wake(rt);
        return;
    }
    s->L_local += t->exec_time;
    tide_predict_record_time(t);
    tide_task_release(t);
    if (tide_task_completed(rt) == 0) tide_comm_wake(rt);
}

static bool phase_over(tide_rt *rt, int target)
{
    return atomic_load_explicit(&rt->phase_done, memory_order_acquire) >= target;
}

/* A strategy that plans at phase start chooses among all of the phase's tasks: own tasks wait
 * until its plan is made, so that what moves is exactly what it chose. */
static bool may_start_local(tide_rt *rt, int target)
{
    return !tide_lb_phase_sync(rt) ||
           atomic_load_explicit(&rt->plan_ready, memory_order_acquire) >= target;
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

void tide_worker_loop(tide_rt *rt, int slot)
{
    int target = rt->phase + 1;
    int empty = 0;
    while (!phase_over(rt, target)) {
        tide_task *t = tide_queue_pop_front(&rt->remote);
        if (!t && may_start_local(rt, target)) t = tide_queue_pop_front(&rt->local);
        if (t) {
            tide_task_execute(rt, t, slot);
            empty = 0;
        } else if (++empty > rt->cfg.poll_spin) {
            wait_for_work(rt, target);
        }
    }
}
