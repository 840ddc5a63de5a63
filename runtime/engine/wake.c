/* Wake-ups between the runtime's threads: workers sleep on work_cv when both queues are empty,
 * the comm thread on comm_cv between polls and on drive_cv while the application thread runs its
 * turns (commthread.c). The lowest layer every other part signals through. */
#include "internal.h"

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

void tide_comm_wake(tide_rt *rt)
{
    pthread_mutex_lock(&rt->idle_lock);
    rt->comm_wake_pending = true;
    /* the comm thread, or the application thread where it drives (both may sleep there a
     * moment at a hand-over) */
    pthread_cond_broadcast(&rt->comm_cv);
    /* and the comm thread still waiting out a drive that ended without a wake (commthread.c) */
    if (rt->comm_drive_waits && !atomic_load_explicit(&rt->app_driving, memory_order_relaxed))
        pthread_cond_signal(&rt->drive_cv);
    pthread_mutex_unlock(&rt->idle_lock);
}

void tide_comm_drive_end(tide_rt *rt, bool phase_over)
{
    pthread_mutex_lock(&rt->idle_lock);
    atomic_store_explicit(&rt->app_driving, false, memory_order_release);
    /* A task starts: the turns must go on while it runs, so the comm thread is woken (a system
     * call, and on a full machine a thread that takes a core). Except where the phases are
     * short (the last one shorter than TIDE_POLL_SLEEP_MAX_US) and no send is in flight: there a
     * task ends, and this thread drives again, sooner than a wake-up would take (on 2 cores a
     * wake a task made a one-task phase twice as long: docs/performance.md, section 15), and
     * the comm thread takes over at its wait's end in any case. A thread that never saw the
     * driving (asleep since before the phase, up to 100 ms after inline phases) is woken
     * always; after the phase's end it need not be. */
    bool short_phases = rt->last_phase_s * 1e6 < rt->cfg.poll_sleep_max_us;
    if (!phase_over && (rt->drive_sends || !short_phases || !rt->comm_drive_waits)) {
        rt->comm_wake_pending = true;
        pthread_cond_signal(&rt->drive_cv);
        pthread_cond_broadcast(&rt->comm_cv);
    }
    pthread_mutex_unlock(&rt->idle_lock);
}
