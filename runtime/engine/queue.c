/* A mutex-protected doubly-linked task queue ordered by task priority (higher first, FIFO among
 * equals): workers pop from the front, the offloading engine takes from the back, so the tasks
 * that leave are those a worker would start last (the lowest priority). A task's `queued` flag
 * changes only under its queue's lock: whoever unlinks it owns it.
 *
 * Order costs O(log L) per push and unlink, L the distinct priorities queued: the queue keeps,
 * per priority present, its last task (levels[], descending), and a push links the task after
 * its level's last one. Without priorities there is one level and a push appends. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void tide_queue_init(tide_queue *q)
{
    /* Several workers take tasks one at a time under this lock: a waiter spins a little before
     * it sleeps, as a pop lasts far less than a futex sleep and wake-up (Task Bench's `trivial`
     * on one rank x 2 workers: 0.78 of the time a step; docs/performance.md, section 14). */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef __GLIBC__
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&q->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    q->head = q->tail = NULL;
    atomic_init(&q->count, 0);
    q->levels = NULL;
    q->nlevels = q->cap_levels = 0;
}

void tide_queue_destroy(tide_queue *q)
{
    pthread_mutex_destroy(&q->lock);
    free(q->levels);
    q->levels = NULL;
    q->nlevels = q->cap_levels = 0;
}

/* The index of priority p in levels[] (descending), or where it would be inserted; *found says
 * which. */
static int level_find(const tide_queue *q, int p, bool *found)
{
    int lo = 0, hi = q->nlevels;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (q->levels[mid].prio > p)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < q->nlevels && q->levels[lo].prio == p;
    return lo;
}

static void level_insert(tide_queue *q, int k, int p, tide_task *last)
{
    if (q->nlevels == q->cap_levels) {
        int cap = q->cap_levels ? 2 * q->cap_levels : 4;
        tide_queue_level *l = realloc(q->levels, (size_t)cap * sizeof *l);
        /* A task that cannot be queued would be lost: stop loudly instead. */
        if (!l) tide_fatal("out of memory queueing a task of priority %d", p);
        q->levels = l;
        q->cap_levels = cap;
    }
    if (k < q->nlevels) /* (mostly it goes last: no call) */
        memmove(q->levels + k + 1, q->levels + k, (size_t)(q->nlevels - k) * sizeof *q->levels);
    q->levels[k] = (tide_queue_level){p, last};
    q->nlevels++;
}

/* Links t after `after` (NULL: at the head). */
static void link_after(tide_queue *q, tide_task *after, tide_task *t)
{
    t->prev = after;
    t->next = after ? after->next : q->head;
    if (t->next)
        t->next->prev = t;
    else
        q->tail = t;
    if (after)
        after->next = t;
    else
        q->head = t;
}

void tide_queue_push_locked(tide_queue *q, tide_task *t)
{
    /* Mostly the task's priority is the lowest present (without priorities, the only one): it
     * goes at the tail, which is that level's last task, without a search. */
    int lowest = q->nlevels - 1;
    if (lowest >= 0 && q->levels[lowest].prio == t->priority) {
        link_after(q, q->tail, t);
        q->levels[lowest].last = t;
        t->queued = true;
        tide_locked_add(&q->count, 1);
        return;
    }
    bool found;
    int k = level_find(q, t->priority, &found);
    if (found) {
        link_after(q, q->levels[k].last, t);
        q->levels[k].last = t;
    } else {
        link_after(q, k > 0 ? q->levels[k - 1].last : NULL, t);
        level_insert(q, k, t->priority, t);
    }
    t->queued = true;
    tide_locked_add(&q->count, 1);
}

void tide_queue_push_list_locked(tide_queue *q, tide_task *first)
{
    for (tide_task *next; first; first = next) {
        next = first->next; /* the push links the task anew */
        tide_queue_push_locked(q, first);
    }
}

void tide_queue_push(tide_queue *q, tide_task *t)
{
    pthread_mutex_lock(&q->lock);
    tide_queue_push_locked(q, t);
    pthread_mutex_unlock(&q->lock);
}

static void unlink_locked(tide_queue *q, tide_task *t);

int tide_queue_pop_front_n(tide_queue *q, tide_task **out, int n)
{
    /* Empty queues are the common case for idle workers: skip the lock. */
    if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return 0;
    int got = 0;
    pthread_mutex_lock(&q->lock);
    for (tide_task *t; got < n && (t = q->head);) {
        unlink_locked(q, t);
        out[got++] = t;
    }
    pthread_mutex_unlock(&q->lock);
    return got;
}

tide_task *tide_queue_pop_front(tide_queue *q)
{
    tide_task *t = NULL;
    tide_queue_pop_front_n(q, &t, 1);
    return t;
}

/* The level of a queued task: the first at the queue's head (a worker's pop), the last at its
 * tail (an offload's take), else a search. */
static int level_of(const tide_queue *q, const tide_task *t)
{
    bool found = true;
    int k = !t->prev ? 0 : !t->next ? q->nlevels - 1 : level_find(q, t->priority, &found);
    if (!found || k < 0 || q->levels[k].prio != t->priority)
        tide_fatal("a queued task's priority %d has no level", t->priority);
    return k;
}

static void unlink_locked(tide_queue *q, tide_task *t)
{
    int k = level_of(q, t);
    if (q->levels[k].last == t) {
        if (t->prev && t->prev->priority == t->priority) {
            q->levels[k].last = t->prev;
        } else {
            if (k < q->nlevels - 1)
                memmove(q->levels + k, q->levels + k + 1,
                        (size_t)(q->nlevels - k - 1) * sizeof *q->levels);
            q->nlevels--;
        }
    }
    if (t->prev)
        t->prev->next = t->next;
    else
        q->head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        q->tail = t->prev;
    t->queued = false;
    tide_locked_add(&q->count, -1);
}

tide_task *tide_queue_take_all_locked(tide_queue *q)
{
    tide_task *first = q->head;
    for (tide_task *t = first; t; t = t->next)
        t->queued = false;
    q->head = q->tail = NULL;
    q->nlevels = 0;
    atomic_store_explicit(&q->count, 0, memory_order_relaxed); /* (changed under lock only) */
    return first;
}

tide_task *tide_queue_take_all(tide_queue *q)
{
    pthread_mutex_lock(&q->lock);
    tide_task *first = tide_queue_take_all_locked(q);
    pthread_mutex_unlock(&q->lock);
    return first;
}

int tide_queue_take_back(tide_queue *q, tide_task **out, int n)
{
    int taken = 0;
    pthread_mutex_lock(&q->lock);
    for (tide_task *t = q->tail, *prev; t && taken < n; t = prev) {
        prev = t->prev;
        /* A replica is out, or the application pinned it: this one must stay where it is. */
        if (t->replicated || t->pinned) continue;
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
