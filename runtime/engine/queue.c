/* A mutex-protected doubly-linked task queue: workers pop from the front, the offloading engine
 * takes from the back, so the tasks that leave are those a worker would start last. A task's
 * `queued` flag changes only under its queue's lock: whoever unlinks it owns it. */
#include "internal.h"

void tide_queue_init(tide_queue *q)
{
    pthread_mutex_init(&q->lock, NULL);
    q->head = q->tail = NULL;
    atomic_init(&q->count, 0);
}

void tide_queue_destroy(tide_queue *q)
{
    pthread_mutex_destroy(&q->lock);
}

void tide_queue_push_locked(tide_queue *q, tide_task *t)
{
    t->next = NULL;
    t->queued = true;
    t->prev = q->tail;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
}

void tide_queue_push(tide_queue *q, tide_task *t)
{
    pthread_mutex_lock(&q->lock);
    tide_queue_push_locked(q, t);
    pthread_mutex_unlock(&q->lock);
}

tide_task *tide_queue_pop_front(tide_queue *q)
{
    /* Empty queues are the common case for idle workers: skip the lock. */
    if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&q->lock);
    tide_task *t = q->head;
    if (t) {
        q->head = t->next;
        if (q->head)
            q->head->prev = NULL;
        else
            q->tail = NULL;
        t->queued = false;
        atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}

static void unlink_locked(tide_queue *q, tide_task *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        q->head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        q->tail = t->prev;
    t->queued = false;
    atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
}

int tide_queue_take_back(tide_queue *q, tide_task **out, int n)
{
    int taken = 0;
    pthread_mutex_lock(&q->lock);
    for (tide_task *t = q->tail, *prev; t && taken < n; t = prev) {
        prev = t->prev;
        if (t->replicated) continue; /* a replica is out: this one must stay where it is */
        unlink_locked(q, t);
        out[taken++] = t;
    }
    pthread_mutex_unlock(&q->lock);
    return taken;
}

bool tide_queue_remove(tide_queue *q, tide_task *t)
{
    pthread_mutex_lock(&q->lock);
    bool was = t->queued;
    if (was) unlink_locked(q, t);
    pthread_mutex_unlock(&q->lock);
    return was;
}

tide_task *tide_queue_remove_if(tide_queue *q, bool (*match)(const tide_task *, const void *),
                                const void *arg)
{
    pthread_mutex_lock(&q->lock);
    tide_task *t = q->head;
    while (t && !match(t, arg))
        t = t->next;
    if (t) unlink_locked(q, t);
    pthread_mutex_unlock(&q->lock);
    return t;
}

void tide_queue_visit(tide_queue *q, bool backwards,
                      bool (*visit)(tide_queue *, tide_task *, void *), void *arg)
{
    pthread_mutex_lock(&q->lock);
    for (tide_task *t = backwards ? q->tail : q->head, *after; t; t = after) {
        after = backwards ? t->prev : t->next; /* visit may unlink t */
        if (!visit(q, t, arg)) break;
    }
    pthread_mutex_unlock(&q->lock);
}

void tide_queue_unlink_locked(tide_queue *q, tide_task *t)
{
    unlink_locked(q, t);
}

size_t tide_queue_front_size(tide_queue *q, size_t (*size_of)(const tide_task *))
{
    pthread_mutex_lock(&q->lock);
    size_t len = q->head ? size_of(q->head) : 0;
    pthread_mutex_unlock(&q->lock);
    return len;
}
