/* Wake-ups between the runtime's threads: workers sleep on work_cv when both queues are empty,
 * the comm thread on comm_cv between polls. The lowest layer every other part signals through. */
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
