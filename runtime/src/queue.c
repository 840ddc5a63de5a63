/* A mutex-protected doubly-linked task queue: workers pop from the front, the offloading engine
 * takes from the back, so the tasks that leave are those a worker would start last. */
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

void tide_queue_push(tide_queue *q, tide_task *t)
{
    t->next = NULL;
    pthread_mutex_lock(&q->lock);
    t->prev = q->tail;
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
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
        if (q->head) q->head->prev = NULL;
        else q->tail = NULL;
        atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}

int tide_queue_take_back(tide_queue *q, tide_task **out, int n)
{
    int taken = 0;
    pthread_mutex_lock(&q->lock);
    while (taken < n && q->tail) {
        tide_task *t = q->tail;
        q->tail = t->prev;
        if (q->tail) q->tail->next = NULL;
        else q->head = NULL;
        out[taken++] = t;
    }
    atomic_fetch_sub_explicit(&q->count, taken, memory_order_relaxed);
    pthread_mutex_unlock(&q->lock);
    return taken;
}

void tide_queue_splice(tide_queue *to, tide_queue *from)
{
    pthread_mutex_lock(&from->lock);
    tide_task *h = from->head, *tl = from->tail;
    long n = atomic_exchange(&from->count, 0);
    from->head = from->tail = NULL;
    pthread_mutex_unlock(&from->lock);
    if (!h) return;
    pthread_mutex_lock(&to->lock);
    h->prev = to->tail;
    if (to->tail) to->tail->next = h;
    else to->head = h;
    to->tail = tl;
    atomic_fetch_add(&to->count, n);
    pthread_mutex_unlock(&to->lock);
}
