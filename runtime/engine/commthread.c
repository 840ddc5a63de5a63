/* The comm thread's loop. One loop turn receives messages, sends results and offloaded tasks
 * (transport.c), advances the phase protocol (phase.c), runs a tide_comm_call, and lets the
 * strategy act (lb_host.c). When nothing happens for TIDE_POLL_SPIN turns it sleeps, doubling the
 * sleep up to TIDE_POLL_SLEEP_MAX_US, so that idle ranks leave the cores to the workers. Turns run
 * one at a time (turn_lock), and not always here: in a protocol phase the application thread runs
 * them itself while it has no task to run (TIDE_WAIT_PROGRESS: drive_step, called from
 * worker.c through rt->drive_step), and this thread waits meanwhile (drive_wait). Besides these
 * turns, only an inline phase's agreement (phase.c) calls MPI, on the application thread, while
 * this thread has no part in the phase. This file is the top of the engine: it wires the layers
 * below together (the dispatch of incoming control messages and replica results) and is called by
 * none of them. The back-off schedule is the engine core's (tide_core_backoff.h), which tide-sim
 * follows too. */
#define _GNU_SOURCE
#include "internal.h"
#include "tide_core_backoff.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* The longest sleep of the idle comm thread when the application thread runs the phases. */
#define INLINE_SLEEP_MAX_US 100000L

/* The body of a thread that only tries the pinning. */
static void *try_cpu(void *arg)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*(int *)arg, &set);
    *(int *)arg = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    return NULL;
}

/* "0-3,8" for a CPU set. */
static void format_cpus(const cpu_set_t *set, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set))) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int w = last > c ? snprintf(out + n, len - n, "%s%d-%d", n ? "," : "", c, last)
                         : snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
        n += w > 0 ? (size_t)w : 0;
    }
}

int tide_comm_cpu_check(const tide_rt *rt)
{
    int cpu = rt->cfg.comm_cpu;
    if (cpu < 0) return TIDE_OK; /* not pinned, or `last`: a CPU of the rank's own mask */
    /* Tried on a thread of its own: the kernel, not the rank's mask, knows which CPUs exist and
     * which the process may use (its cpuset). */
    int rc = cpu;
    pthread_t t;
    int created = pthread_create(&t, NULL, try_cpu, &rc);
    if (created) return tide_fail(TIDE_ERR_STATE, "cannot start a thread: %s", strerror(created));
    pthread_join(t, NULL);
    if (rc == 0) return TIDE_OK;
    cpu_set_t mask;
    char cpus[256] = "?";
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) format_cpus(&mask, cpus, sizeof cpus);
    return tide_fail(TIDE_ERR_CONFIG,
                     "TIDE_COMM_CPU='%d' is invalid: rank %d cannot run on CPU %d (%s); expected "
                     "-1, 'last' or a CPU it may use (its affinity mask: %s)",
                     cpu, rt->rank, cpu, strerror(rc), cpus);
}

static void pin_self(tide_rt *rt)
{
    int cpu = rt->cfg.comm_cpu;
    if (cpu == -1) return;
    cpu_set_t set;
    if (cpu == TIDE_COMM_CPU_LAST) {
        /* The thread inherited the rank's mask: take its highest CPU. */
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
                if (CPU_ISSET(c, &set)) cpu = c;
    }
    int rc = cpu < 0 ? EINVAL : 0;
    if (!rc) {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    if (rc)
        fprintf(stderr, "tide: rank %d: cannot pin the comm thread to CPU %d: %s\n", rt->rank, cpu,
                strerror(rc));
    else if (rt->cfg.verbose)
        fprintf(stderr, "tide: rank %d: comm thread pinned to CPU %d\n", rt->rank, cpu);
}

/* The time `us` microseconds from now, as pthread_cond_timedwait takes it. */
static struct timespec deadline_us(long us)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += us * 1000;
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    return ts;
}

static void idle_sleep(tide_rt *rt, long us)
{
    struct timespec ts = deadline_us(us);
    pthread_mutex_lock(&rt->idle_lock);
    /* A wake that came while this thread was busy (a taskwait starting, the last task done, a
     * cancel to send) is not lost: it cuts the next sleep short. */
    if (!rt->comm_wake_pending && !atomic_load(&rt->stop) && atomic_load(&rt->results.count) == 0)
        pthread_cond_timedwait(&rt->comm_cv, &rt->idle_lock, &ts);
    rt->comm_wake_pending = false;
    pthread_mutex_unlock(&rt->idle_lock);
}

/* While the application thread drives: until it hands the turns back, or a back-off sleep's
 * longest time (it may hand them back without a wake: tide_comm_drive_end, wake.c). */
static void drive_wait(tide_rt *rt)
{
    struct timespec ts = deadline_us(rt->cfg.poll_sleep_max_us);
    pthread_mutex_lock(&rt->idle_lock);
    rt->comm_drive_waits = true;
    if (atomic_load_explicit(&rt->app_driving, memory_order_relaxed) && !atomic_load(&rt->stop))
        pthread_cond_timedwait(&rt->drive_cv, &rt->idle_lock, &ts);
    rt->comm_drive_waits = false;
    pthread_mutex_unlock(&rt->idle_lock);
}

void tide_comm_call(tide_rt *rt, void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&rt->idle_lock);
    rt->call_fn = fn;
    rt->call_arg = arg;
    rt->call_done = false;
    atomic_store_explicit(&rt->call_pending, true, memory_order_release);
    rt->comm_wake_pending = true;
    pthread_cond_signal(&rt->comm_cv);
    pthread_cond_signal(&rt->drive_cv); /* it may wait out the last phase's drive */
    while (!rt->call_done)
        pthread_cond_wait(&rt->call_cv, &rt->idle_lock);
    pthread_mutex_unlock(&rt->idle_lock);
}

/* A tide_comm_call, if one waits and no phase runs (the caller is outside tide_taskwait, so none
 * starts meanwhile). One atomic load per turn when there is none. */
static bool run_call(tide_rt *rt)
{
    if (!tide_protocol_idle(rt->protocol) ||
        !atomic_load_explicit(&rt->call_pending, memory_order_acquire))
        return false;
    pthread_mutex_lock(&rt->idle_lock);
    void (*fn)(void *) = rt->call_fn;
    void *arg = rt->call_arg;
    pthread_mutex_unlock(&rt->idle_lock);
    fn(arg);
    pthread_mutex_lock(&rt->idle_lock);
    atomic_store_explicit(&rt->call_pending, false, memory_order_relaxed);
    rt->call_done = true;
    pthread_cond_broadcast(&rt->call_cv);
    pthread_mutex_unlock(&rt->idle_lock);
    return true;
}

/* Control messages: the engine's own (replica cancels) or the strategy's. */
static void control(tide_rt *rt, int src, const tide_control *msg)
{
    if (msg->op >= TIDE_LB_OP_ENGINE)
        tide_replica_control(rt, src, msg);
    else
        tide_lb_control(rt, src, msg);
}

static const tide_dispatch dispatch = {.other_result = tide_replica_result, .control = control};

/* One turn of the loop: whether it did anything. Under turn_lock. */
static bool turn(tide_rt *rt)
{
    bool did = tide_transport_poll(rt, &dispatch);
    did |= tide_transport_send_results(rt);
    did |= tide_protocol_step(rt->protocol);
    did |= run_call(rt);
    did |= tide_transport_send_tasks(rt);
    did |= tide_replica_flush_cancels(rt);
    did |= tide_transport_complete(rt);
    return did;
}

/* The application thread's step while it drives (TIDE_WAIT_PROGRESS; worker.c): one turn,
 * or after TIDE_POLL_SPIN empty ones a back-off sleep on comm_cv, as this thread's own loop
 * sleeps; what needs a turn (a result to send, the last own task done) wakes it there. Whether
 * it did anything. */
static bool drive_step(tide_rt *rt, tide_backoff *b)
{
    if (pthread_mutex_trylock(&rt->turn_lock) != 0) {
        /* The comm thread's turn, its last: it waits after it. It may hold the lock off a core
         * (two cores, four threads), so yield now and then rather than only spin. */
        if (++rt->drive_fails % 64 == 0) sched_yield();
        return false;
    }
    bool did = turn(rt);
    rt->drive_sends = !tide_transport_idle(rt);
    pthread_mutex_unlock(&rt->turn_lock);
    if (did) {
        rt->drive_turns++;
        tide_backoff_busy(b);
        return true;
    }
    long us = tide_backoff_idle(b);
    if (us) idle_sleep(rt, us);
    return false;
}

static void *comm_main(void *arg)
{
    tide_rt *rt = arg;
    pin_self(rt);
    /* The kernel's default 50 us timer slack turns a 1 us back-off sleep into ~100 us. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    tide_backoff backoff;
    tide_backoff_init(&backoff, rt->cfg.poll_spin, rt->cfg.poll_sleep_max_us);
    for (;;) {
        /* The application thread runs the turns while it waits with nothing to run. */
        if (atomic_load_explicit(&rt->app_driving, memory_order_acquire)) {
            drive_wait(rt);
            tide_backoff_busy(&backoff);
            continue;
        }
        pthread_mutex_lock(&rt->turn_lock);
        bool did = turn(rt);
        pthread_mutex_unlock(&rt->turn_lock);
        if (did) {
            tide_backoff_busy(&backoff);
            continue;
        }
        if (atomic_load(&rt->stop) && tide_protocol_idle(rt->protocol) &&
            tide_protocol_closing_done(rt->protocol))
            break;
        /* While the application thread runs the phases (a strategy that never acts, or phases
         * the plan gate holds idle: inline_now from the last tide_taskwait on), nothing reaches
         * this thread but what wakes it (comm_cv): a tide_comm_call, the stop, and the
         * tide_taskwait of a phase through the protocol (or, where the application thread drives
         * that phase, its hand-back: tide_comm_drive_end). Its sleeps may then be long, and its
         * polls leave the cores to the phases (every 250 us, they preempted the application
         * thread thousands of times a second where the gate held react or proact idle); the
         * bound is a safety net only. So it sleeps that long at once, without the spin turns and
         * the doubling sleeps of the back-off: after each of the plan gate's probes (a protocol
         * phase among idle ones) those were some 17 wake-ups, each of which took the core from
         * the application thread of a rank bound to one (Task Bench's `stencil_1d` on 2 ranks:
         * docs/performance.md, section 14). Not once tide_finalize began: its closing collective
         * may wait for sends to complete, which wake nobody. */
        bool quiet =
            !atomic_load(&rt->stop) &&
            (rt->inline_phases || atomic_load_explicit(&rt->inline_now, memory_order_acquire));
        long sleep_us = INLINE_SLEEP_MAX_US;
        if (!quiet) {
            tide_backoff_cap(&backoff, rt->cfg.poll_sleep_max_us);
            sleep_us = tide_backoff_idle(&backoff);
        }
        if (sleep_us) idle_sleep(rt, sleep_us);
    }
    return NULL;
}

int tide_comm_start(tide_rt *rt)
{
    int rc = tide_transport_create(rt);
    if (rc != TIDE_OK) return rc;
    /* Both exist before the thread does: it and the strategy's actions use them at once. */
    rc = tide_protocol_create(rt, &rt->protocol);
    if (rc != TIDE_OK) {
        tide_transport_destroy(rt);
        return rc;
    }
    if (rt->cfg.wait_progress != TIDE_WAIT_PROGRESS_COMM) rt->drive_step = drive_step;
    rc = pthread_create(&rt->comm, NULL, comm_main, rt);
    if (!rc) pthread_setname_np(rt->comm, "tide-comm"); /* in top -H, perf and gdb */
    if (rc) {
        tide_protocol_destroy(rt->protocol);
        rt->protocol = NULL;
        tide_transport_destroy(rt);
        return tide_fail(TIDE_ERR_STATE, "cannot start the comm thread: %s", strerror(rc));
    }
    return TIDE_OK;
}

void tide_comm_stop(tide_rt *rt)
{
    atomic_store(&rt->stop, true);
    tide_comm_wake(rt);
    pthread_join(rt->comm, NULL);
    tide_transport_destroy(rt);
    tide_replica_finalize(rt);
    tide_protocol_destroy(rt->protocol);
    rt->protocol = NULL;
}
