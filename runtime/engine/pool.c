/* The worker pool: the threads - 1 workers besides the application thread are Tide's own
 * pthreads, started at tide_init, that block on a condition variable between phases. An OpenMP
 * parallel region per taskwait would leave its threads spinning after the region (libgomp's
 * default wait policy spins for milliseconds), on the cores the application needs for its own
 * work between phases (issue 16, item 6; docs/performance.md, "Idle cost between phases").
 * Tide's threads cost no CPU between phases whatever OMP_WAIT_POLICY says, and that setting
 * stays the application's, for its own parallel regions. Only for POOL_SPIN seconds after a
 * phase do the workers watch for the next one before they sleep (and the application thread
 * for the workers' return before it sleeps): a wake-up through a condition variable costs
 * 5-50 us on a VM, more than a fine-grained phase (docs/performance.md, section 15), and an
 * application that steps that fast calls the next taskwait within microseconds. Where the
 * application came back within POOL_WATCH_MAX / 2 last time, the workers watch for two phase
 * periods, up to POOL_WATCH_MAX: a worker that sleeps through every gap of a fine-grained run pays
 * a wake-up at every phase, and on a VM a woken worker whose idle vCPU halted ran 0.1-2 ms later,
 * so that a phase of 250 us ran on one worker (Task Bench's `trivial`, 64 timesteps of 2 tasks a
 * phase on one rank x 2 workers, the gap 30-60 us of submissions). An application whose gaps are
 * longer (its own work between taskwaits) keeps the short watch: the workers cost it no CPU there;
 * so does a node whose ranks run more workers than it has cores (node.c), where a watching worker
 * would hold a core that another rank's thread waits for.
 * TIDE_POLL_SPIN=0 turns the watch off.
 *
 * A worker takes part in a phase only if it wakes before the phase is over: the application
 * thread, once its own loop has left the phase, closes it (`closed`, under the lock) and waits
 * only for the workers that joined (`active`). A worker that wakes later sees the phase closed
 * and waits for the next one. Every task of the phase is complete by then (a share a worker never
 * claimed is run by the others: worker.c), so a worker that never got a CPU in time changes
 * nothing but the wait: on this 2-core VM a woken worker sometimes ran only 1-2 ms later (its
 * idle vCPU halted), and a phase of 250 us waited for it every time (Task Bench's `trivial`,
 * one rank x 2 workers; docs/performance.md, section 14).
 *
 * Placement follows OpenMP's: when OMP_PROC_BIND binds threads, one parallel region at init
 * records where OpenMP puts threads 0 .. threads-1, and worker i takes thread i's CPU set. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* How long a thread watches for the other side before it sleeps on the condition variable; a
 * worker watches for the next phase up to POOL_WATCH_MAX where the last gap between phases was
 * below half that. */
#define POOL_SPIN 20e-6
#define POOL_WATCH_MAX 1e-3

struct tide_pool {
    tide_rt *rt;
    int n; /* threads - 1 */
    pthread_t *tids;
    cpu_set_t *masks; /* threads entries, or NULL: not bound */
    pthread_mutex_t lock;
    pthread_cond_t start_cv, done_cv;
    /* Written under lock; read without it only by the watches before a sleep. */
    atomic_int generation;         /* phases started */
    atomic_int active;             /* workers that joined the current phase and have not left it */
    int closed;                    /* the last phase over for the workers: none joins it any more */
    double phase_begin, phase_end; /* the last phase's, for the workers (application thread) */
    _Atomic double watch;          /* how long a worker watches for the next phase (seconds) */
    bool long_watch;               /* each worker of the node has a core of its own (node.c) */
    bool stop;
};

/* Watches *v for up to `seconds` while it equals value: whether it changed. The caller then
 * takes the lock and checks again, so a change the watch missed is never lost. */
static bool watch_change(const tide_rt *rt, atomic_int *v, int value, double seconds)
{
    if (rt->cfg.poll_spin == 0) return false;
    double until = tide_now() + seconds;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(v, memory_order_acquire) != value) return true;
        if (i % 32 == 0 && tide_now() > until) return false;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

typedef struct worker_arg {
    tide_pool *pool;
    int slot;
} worker_arg;

static void *worker_main(void *arg)
{
    worker_arg a = *(worker_arg *)arg;
    free(arg);
    tide_pool *p = a.pool;
    if (p->masks) pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &p->masks[a.slot]);
    int seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->generation == seen && !p->stop) {
            pthread_mutex_unlock(&p->lock);
            watch_change(p->rt, &p->generation, seen,
                         atomic_load_explicit(&p->watch, memory_order_relaxed));
            pthread_mutex_lock(&p->lock);
        }
        while (p->generation == seen && !p->stop)
            pthread_cond_wait(&p->start_cv, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        if (p->closed == seen) continue; /* woke too late: the others ran the phase */
        p->active++;
        pthread_mutex_unlock(&p->lock);
        tide_worker_loop(p->rt, a.slot, 0);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0) pthread_cond_signal(&p->done_cv);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Where OpenMP would place threads 0 .. n-1, when it binds them at all. */
static cpu_set_t *openmp_places(int n)
{
    if (omp_get_proc_bind() == omp_proc_bind_false) return NULL;
    cpu_set_t *m = calloc((size_t)n, sizeof *m);
    if (!m) return NULL;
#pragma omp parallel num_threads(n)
    pthread_getaffinity_np(pthread_self(), sizeof *m, &m[omp_get_thread_num()]);
    return m;
}

static void pool_free(tide_pool *p)
{
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->start_cv);
    pthread_cond_destroy(&p->done_cv);
    free(p->masks);
    free(p->tids);
    free(p);
}

int tide_pool_start(tide_rt *rt)
{
    tide_pool *p = calloc(1, sizeof *p);
    if (!p) return tide_fail(TIDE_ERR_NOMEM, "out of memory starting the workers");
    p->rt = rt;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->tids = calloc((size_t)rt->threads, sizeof *p->tids);
    if (!p->tids) {
        pool_free(p);
        return tide_fail(TIDE_ERR_NOMEM, "out of memory starting the workers");
    }
    p->masks = openmp_places(rt->threads);
    p->watch = POOL_SPIN;
    p->long_watch = rt->node.workers <= rt->node.cores;
    rt->pool = p;
    for (int i = 1; i < rt->threads; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (a) *a = (worker_arg){p, i};
        int rc = a ? pthread_create(&p->tids[i - 1], NULL, worker_main, a) : ENOMEM;
        if (rc) {
            free(a);
            tide_pool_stop(rt);
            return tide_fail(TIDE_ERR_STATE, "cannot start worker thread %d: %s", i, strerror(rc));
        }
        pthread_setname_np(p->tids[i - 1], "tide-worker"); /* in top -H, perf and gdb */
        p->n++;
    }
    return TIDE_OK;
}

void tide_pool_stop(tide_rt *rt)
{
    tide_pool *p = rt->pool;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n; i++)
        pthread_join(p->tids[i], NULL);
    pool_free(p);
    rt->pool = NULL;
}

void tide_pool_run_phase(tide_rt *rt, double since)
{
    tide_pool *p = rt->pool;
    if (p->n == 0) { /* the application thread is the only worker: nobody to start or wait for */
        tide_worker_loop(rt, 0, since);
        return;
    }
    /* Where the application came back within POOL_WATCH_MAX / 2 (its own time between
     * taskwaits), a worker watches for up to two phases' periods: the one that left a phase
     * for the next, the one that woke too late for a phase (closed) for the one after. */
    double gap = rt->phase_start - p->phase_end, period = rt->phase_start - p->phase_begin;
    double watch = p->long_watch && gap < POOL_WATCH_MAX / 2 ? 2 * period : POOL_SPIN;
    atomic_store_explicit(&p->watch,
                          watch < POOL_SPIN        ? POOL_SPIN
                          : watch > POOL_WATCH_MAX ? POOL_WATCH_MAX
                                                   : watch,
                          memory_order_relaxed);
    p->phase_begin = rt->phase_start;
    pthread_mutex_lock(&p->lock);
    p->generation++;
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->lock);
    tide_worker_loop(rt, 0, 0); /* since is older than the start of the others */
    /* Every worker that joined has left the phase before taskwait returns, and none joins it
     * after: none may take a task the application submits for the next one. */
    pthread_mutex_lock(&p->lock);
    p->closed = p->generation;
    int left = p->active;
    pthread_mutex_unlock(&p->lock);
    while (left > 0 && watch_change(rt, &p->active, left, POOL_SPIN))
        left = atomic_load_explicit(&p->active, memory_order_acquire);
    pthread_mutex_lock(&p->lock);
    while (p->active > 0)
        pthread_cond_wait(&p->done_cv, &p->lock);
    pthread_mutex_unlock(&p->lock);
    p->phase_end = tide_now();
}
