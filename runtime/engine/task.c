/* Task objects: creation with argument checking, submission, and their single allocation. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN16(x) (((x) + 15u) & ~(size_t)15u)

/* Blocks of tasks that fit in TASK_BLOCK bytes (a task with its argument descriptors and a few
 * small VALUE arguments) are kept for the next tasks: glibc's per-thread cache holds 7 blocks of
 * a size, so in a phase of many small tasks each allocation and free went through malloc's bins,
 * about 300 instructions a task (callgrind, Task Bench's `trivial`, 64 tasks a phase). Each
 * thread keeps up to CACHE_MAX spare blocks of its own, without a lock, and trades CACHE_MOVE at
 * a time with the process's spare list (at most SPARE_MAX): tasks are mostly created by the
 * application thread and freed by the workers. A block's first word links the spare ones. */
enum { TASK_BLOCK = 512, SPARE_MAX = 4096, CACHE_MAX = 64, CACHE_MOVE = 32 };
#ifdef __SANITIZE_ADDRESS__ /* ASan sees each task's own bounds and every use after its free */
enum { TASK_RECYCLING = 0 };
#else
enum { TASK_RECYCLING = 1 };
#endif
typedef struct block_list {
    void *head;
    long n;
} block_list;

static struct {
    pthread_mutex_t lock;
    block_list list;
} spare = {PTHREAD_MUTEX_INITIALIZER, {NULL, 0}};
/* The initial-exec model makes each access one load off the thread pointer, where the default
 * one for a shared library calls __tls_get_addr (twice per task allocation and twice per free,
 * about 45 instructions a task); its price, 24 bytes of the static TLS glibc keeps for libraries
 * loaded with dlopen (512 by default), is small. */
#define TLS_FAST __attribute__((tls_model("initial-exec")))
static _Thread_local block_list cache TLS_FAST;
static _Thread_local bool cache_registered TLS_FAST;
/* Its destructor returns an exiting thread's cache to the spare list. */
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void *list_pop(block_list *l)
{
    void *b = l->head;
    if (b) {
        memcpy(&l->head, b, sizeof(void *));
        l->n--;
    }
    return b;
}

static void list_push(block_list *l, void *b)
{
    memcpy(b, &l->head, sizeof(void *));
    l->head = b;
    l->n++;
}

/* Up to n of this thread's cached blocks into the spare list (freed beyond SPARE_MAX). */
static void cache_return(long n)
{
    pthread_mutex_lock(&spare.lock);
    for (void *b; n-- > 0 && (b = list_pop(&cache));) {
        if (spare.list.n < SPARE_MAX)
            list_push(&spare.list, b);
        else
            free(b);
    }
    pthread_mutex_unlock(&spare.lock);
}

static void cache_exit(void *unused)
{
    (void)unused;
    cache_return(cache.n);
}

static void cache_key_create(void)
{
    if (pthread_key_create(&cache_key, cache_exit) != 0)
        tide_fatal("cannot create the task cache's thread key");
}

/* This thread's cache holds blocks from now on: its exit must return them. */
static void cache_register(void)
{
    if (cache_registered) return;
    pthread_once(&cache_key_once, cache_key_create);
    pthread_setspecific(cache_key, &cache);
    cache_registered = true;
}

static void *block_get(void)
{
    if (!cache.head) {
        pthread_mutex_lock(&spare.lock);
        for (void *b; cache.n < CACHE_MOVE && (b = list_pop(&spare.list));)
            list_push(&cache, b);
        pthread_mutex_unlock(&spare.lock);
        if (cache.head) cache_register();
    }
    void *b = list_pop(&cache);
    return b ? b : malloc(TASK_BLOCK);
}

static void block_put(void *b)
{
    if (!cache.head) cache_register();
    list_push(&cache, b);
    if (cache.n > CACHE_MAX) cache_return(CACHE_MOVE);
}

void tide_task_spares_free(void)
{
    cache_return(cache.n);
    pthread_mutex_lock(&spare.lock);
    for (void *b; (b = list_pop(&spare.list));)
        free(b);
    pthread_mutex_unlock(&spare.lock);
}

/* Clears a task in 16-byte stores: GCC's memset of it is a `rep stos`, whose start costs some
 * 30 cycles of a task that may itself be a fraction of a microsecond. */
static inline void zero_task(tide_task *t)
{
    typedef long long pair __attribute__((vector_size(16), aligned(8), may_alias));
    _Static_assert(sizeof(tide_task) % sizeof(pair) == 0, "a task is whole pairs");
#pragma GCC unroll 32
    for (size_t i = 0; i < sizeof(tide_task) / sizeof(pair); i++)
        ((pair *)t)[i] = (pair){0, 0};
}

tide_task *tide_task_alloc(int nargs, size_t extra, unsigned char **extra_out)
{
    size_t head = ALIGN16(sizeof(tide_task));
    size_t descs = ALIGN16((size_t)nargs * sizeof(tide_arg));
    size_t argv = ALIGN16((size_t)nargs * sizeof(void *));
    size_t size = head + descs + argv + extra;
    bool large = size > TASK_BLOCK;
    unsigned char *mem = TASK_RECYCLING && !large ? block_get() : malloc(size);
    if (!mem) return NULL;
    tide_task *t = (tide_task *)mem;
    zero_task(t);
    t->large = large;
    t->nargs = nargs;
    t->sample = -1;
    t->pos = -1;
    t->cost = -1;
    t->args = (tide_arg *)(mem + head);
    t->argv = (void **)(mem + head + descs);
    if (extra_out) *extra_out = mem + head + descs + argv;
    return t;
}

void tide_rbuf_release(tide_rbuf *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
        free(b->data);
        free(b);
    }
}

void tide_task_free(tide_task *t)
{
    if (!t) return;
    tide_rbuf_release(t->rbuf);
    free(t->result);
    if (TASK_RECYCLING && !t->large) /* its block came from block_get */
        block_put(t);
    else
        free(t);
}

void tide_task_release(tide_task *t)
{
    if (!t->replicated || atomic_fetch_sub(&t->refs, 1) == 1) tide_task_free(t);
}

int tide_task_create(tide_task **out, tide_task_fn fn, int nargs, const tide_arg *args)
{
    if (!out) return tide_fail(TIDE_ERR_INVALID, "tide_task_create: out is NULL");
    *out = NULL;
    if (!tide_rt_global) return tide_fail(TIDE_ERR_STATE, "tide_task_create before tide_init");
    if (!fn) return tide_fail(TIDE_ERR_INVALID, "tide_task_create: task function is NULL");
    if (nargs < 0 || nargs > TIDE_MAX_ARGS)
        return tide_fail(TIDE_ERR_INVALID, "tide_task_create: nargs=%d outside [0, %d]", nargs,
                         TIDE_MAX_ARGS);
    if (nargs > 0 && !args)
        return tide_fail(TIDE_ERR_INVALID, "tide_task_create: args is NULL with nargs=%d", nargs);
    size_t value_bytes = 0;
    for (int i = 0; i < nargs; i++) {
        const tide_arg *a = &args[i];
        if (a->mode < TIDE_IN || a->mode > TIDE_VALUE)
            return tide_fail(TIDE_ERR_INVALID, "tide_task_create: argument %d has mode %d", i,
                             (int)a->mode);
        if (a->size > 0 && !a->ptr)
            return tide_fail(TIDE_ERR_INVALID,
                             "tide_task_create: argument %d is NULL with size %zu", i, a->size);
        if (a->size > ((size_t)1 << 40))
            return tide_fail(TIDE_ERR_INVALID, "tide_task_create: argument %d size %zu too large",
                             i, a->size);
        if (a->mode == TIDE_VALUE) value_bytes += ALIGN16(a->size);
    }
    unsigned char *vals;
    tide_task *t = tide_task_alloc(nargs, value_bytes, &vals);
    if (!t) return tide_fail(TIDE_ERR_NOMEM, "tide_task_create: out of memory");
    t->fn = fn;
    t->origin = tide_rt_global->rank;
    for (int i = 0; i < nargs; i++) {
        t->args[i] = args[i];
        if (args[i].mode == TIDE_VALUE) {
            if (args[i].size) memcpy(vals, args[i].ptr, args[i].size);
            t->args[i].ptr = args[i].size ? vals : NULL;
            vals += ALIGN16(args[i].size);
        }
        t->argv[i] = t->args[i].ptr;
    }
    *out = t;
    return TIDE_OK;
}

int tide_task_set_feature(tide_task *t, int index, double value)
{
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_set_feature: task is NULL");
    if (index < 0 || index >= TIDE_MAX_FEATURES)
        return tide_fail(TIDE_ERR_INVALID, "tide_task_set_feature: index %d outside [0, %d)", index,
                         TIDE_MAX_FEATURES);
    t->features[index] = value;
    if (index >= t->nfeat) t->nfeat = index + 1;
    return TIDE_OK;
}

int tide_task_set_pinned(tide_task *t)
{
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_set_pinned: task is NULL");
    t->pinned = true;
    return TIDE_OK;
}

int tide_task_set_cost(tide_task *t, double seconds)
{
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_set_cost: task is NULL");
    if (!isfinite(seconds) || seconds < 0)
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_task_set_cost: %g seconds is not a finite number >= 0", seconds);
    t->cost = seconds;
    return TIDE_OK;
}

int tide_task_set_priority(tide_task *t, int priority)
{
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_set_priority: task is NULL");
    t->priority = priority;
    return TIDE_OK;
}

/* The task's mark at its position (under local.lock). Out of memory, the marks stop: a plan
 * then weighs this phase's tasks by their average (tide_predict_task_times). */
static void mark(tide_rt *rt, const tide_task *t)
{
    if (t->pos == 0) rt->marks.n = 0;  /* a new phase's first task */
    if (t->pos != rt->marks.n) return; /* a mark before it is missing */
    if (rt->marks.n == rt->marks.cap) {
        long cap = rt->marks.cap ? 2 * rt->marks.cap : 256;
        tide_task_mark *at = realloc(rt->marks.at, (size_t)cap * sizeof *at);
        if (!at) return;
        rt->marks.at = at;
        rt->marks.cap = cap;
    }
    rt->marks.at[rt->marks.n++] = (tide_task_mark){t->sample, t->cost, t->pinned};
}

int tide_task_submit(tide_task *t)
{
    tide_rt *rt = tide_rt_global;
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_submit: task is NULL");
    if (!rt) return tide_fail(TIDE_ERR_STATE, "tide_task_submit before tide_init");
    if (atomic_load_explicit(&rt->in_taskwait, memory_order_relaxed))
        return tide_fail(TIDE_ERR_STATE,
                         "tide_task_submit during tide_taskwait (tasks may not create tasks)");
    /* Onto the phase's submissions, newest first (rt->incoming); tide_taskwait queues them. */
    tide_task *head = atomic_load_explicit(&rt->incoming, memory_order_relaxed);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak_explicit(&rt->incoming, &head, t, memory_order_release,
                                                  memory_order_relaxed));
    return TIDE_OK;
}

tide_task *tide_task_admit(tide_rt *rt, long *count)
{
    tide_task *t = atomic_exchange_explicit(&rt->incoming, NULL, memory_order_acquire);
    tide_task *first = NULL; /* the list reversed: submission order */
    while (t) {
        tide_task *next = t->next;
        t->next = first;
        first = t;
        t = next;
    }
    long n = 0;
    rt->phase_hints.n = 0;
    rt->phase_hints.sum = 0;
    for (tide_task *a = first; a; a = a->next) {
        a->seq = rt->next_seq++;
        a->pos = n++;
        tide_predict_capture(a);
        mark(rt, a);
        if (a->cost >= 0) {
            rt->phase_hints.n++;
            rt->phase_hints.sum += a->cost;
        }
    }
    *count = n;
    return first;
}

int tide_task_discard(tide_task *t)
{
    if (!t) return tide_fail(TIDE_ERR_INVALID, "tide_task_discard: task is NULL");
    tide_task_free(t);
    return TIDE_OK;
}
