/* The life cycle: tide_init, tide_taskwait, tide_finalize. */
#include "internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

tide_rt *tide_rt_global;

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    default:
        return "an unknown thread level";
    }
}

/* MPI initialized (by the application, or here for a predefined communicator) and comm usable;
 * on success rt->mpi_comm is Tide's duplicate of it. */
static int init_mpi(tide_rt *rt, MPI_Comm comm, int *argc, char ***argv)
{
    int inited = 0, finalized = 0, level = 0, inter = 0;
    MPI_Finalized(&finalized);
    if (finalized) return tide_fail(TIDE_ERR_STATE, "tide_init after MPI_Finalize");
    if (comm == MPI_COMM_NULL)
        return tide_fail(TIDE_ERR_INVALID, "tide_init_comm: the communicator is MPI_COMM_NULL");
    MPI_Initialized(&inited);
    if (!inited) {
        if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
            return tide_fail(TIDE_ERR_STATE, "tide_init_comm before MPI_Init_thread: only "
                                             "MPI_COMM_WORLD or MPI_COMM_SELF exist then");
        if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &level) != MPI_SUCCESS)
            return tide_fail(TIDE_ERR_MPI, "MPI_Init_thread failed");
        rt->mpi_owned = true;
    } else {
        MPI_Query_thread(&level);
    }
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return tide_fail(TIDE_ERR_INVALID, "tide_init_comm: an intercommunicator; give Tide an "
                                           "intracommunicator (MPI_Intercomm_merge makes one)");
    MPI_Comm_dup(comm, &rt->mpi_comm);
    MPI_Comm_rank(rt->mpi_comm, &rt->rank);
    MPI_Comm_size(rt->mpi_comm, &rt->size);
    if (level < MPI_THREAD_MULTIPLE)
        return tide_fail(TIDE_ERR_MPI,
                         "MPI provides %s but Tide needs MPI_THREAD_MULTIPLE (its comm thread "
                         "calls MPI while the application may too); initialize MPI with "
                         "MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or let tide_init do it",
                         thread_level_name(level));
    return TIDE_OK;
}

/* Agrees on success across ranks: if any rank failed, every rank fails, and only the lowest
 * failing rank prints its message (one line, not one per rank). */
static int agree(tide_rt *rt, int rc, int code_if_other)
{
    int mine = rc == TIDE_OK ? rt->size : rt->rank, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, rt->mpi_comm);
    if (first == rt->size) return TIDE_OK;
    if (first == rt->rank) fprintf(stderr, "tide: %s\n", tide_last_error_message());
    if (rc != TIDE_OK) return rc;
    return tide_fail(code_if_other, "rank %d failed to initialize Tide", first);
}

/* Every rank's executable must hold the same code: task functions travel as offsets into it
 * (fnid.c), whatever the file is called on each rank. A mismatch names both ranks' files. */
static int check_same_executable(tide_rt *rt)
{
    char path[1024], path0[1024], other[1024];
    uint64_t h = 0;
    int rc = tide_exe_hash(&h, path, sizeof path);
    if (rc != TIDE_OK) snprintf(path, sizeof path, "(unreadable)");
    uint64_t *all = malloc((size_t)rt->size * sizeof *all);
    if (!all) tide_fatal("out of memory comparing the executables");
    MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, rt->mpi_comm);
    int differ = -1;
    for (int i = 0; i < rt->size && differ < 0; i++)
        if (all[i] != all[0]) differ = i;
    free(all);
    if (differ >= 0) { /* every rank knows differ: both paths reach every rank */
        memcpy(path0, path, sizeof path0);
        memcpy(other, path, sizeof other);
        MPI_Bcast(path0, sizeof path0, MPI_CHAR, 0, rt->mpi_comm);
        MPI_Bcast(other, sizeof other, MPI_CHAR, differ, rt->mpi_comm);
    }
    if (rc != TIDE_OK) return rc;
    if (differ >= 0)
        return tide_fail(TIDE_ERR_MISMATCH,
                         "rank %d runs a different executable than rank 0 (rank 0: %s, rank %d: "
                         "%s, whose contents differ): task functions travel as places in the "
                         "program, so every rank must run the same one (a copy under another "
                         "name is fine; set TIDE_CHECK_EXE=0 only if the files differ in nothing "
                         "but bytes outside the code)",
                         differ, path0, differ, other);
    return TIDE_OK;
}

/* The knobs that decide which collectives a phase takes: a rank given another value than the
 * rest would meet them in other collectives and wait forever (a variable that mpirun did not
 * forward to another node: Open MPI's needs -x NAME). TIDE_LB: the strategy; TIDE_PHASE_DRIVER
 * and TIDE_PLAN_GATE: inline phases or the comm thread's protocol; TIDE_SYNC_EVERY: the shape of
 * the inline phases' collective (phase.c); TIDE_PHASE_COLL: whether that collective goes through
 * shared memory (nodecoll.c) or MPI; TIDE_GLOBAL_LB: the objects layer's strategy, whose
 * collectives differ too (by a hash of the name: the layer above names them). One
 * tide_agree_values. */
enum { SHAPE_LB, SHAPE_DRIVER, SHAPE_GATE, SHAPE_SYNC, SHAPE_COLL, SHAPE_GLOBAL, SHAPE_KNOBS };

int tide_agree_values(MPI_Comm comm, const long long *v, int n, long long *lo, long long *hi)
{
    enum { MOST = 16 };
    if (n < 1 || n > MOST) tide_fatal("internal: tide_agree_values of %d values", n);
    long long ext[2 * MOST];
    for (int k = 0; k < n; k++)
        ext[2 * k] = v[k], ext[2 * k + 1] = -v[k];
    MPI_Allreduce(MPI_IN_PLACE, ext, 2 * n, MPI_LONG_LONG, MPI_MAX, comm);
    int first = -1;
    for (int k = 0; k < n; k++) {
        if (lo) lo[k] = -ext[2 * k + 1];
        if (hi) hi[k] = ext[2 * k];
        if (first < 0 && ext[2 * k] != -ext[2 * k + 1]) first = k;
    }
    return first;
}

/* The engine's 64-bit hash of a name (fnid.c), folded to a non-negative int. */
static int name_hash(const char *s)
{
    uint64_t h = tide_hash_bytes(TIDE_HASH_INIT, s, strlen(s));
    return (int)((h ^ (h >> 32)) & 0x7fffffff);
}

static int lb_index(const char *name)
{
    size_t n;
    const tide_lb_ops *const *all = tide_lb_all(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i]->name, name) == 0) return (int)i;
    return (int)n; /* none: the parser takes registered names only (lb_known in config.c) */
}

static void shape_value(int knob, int v, char *out, size_t len)
{
    size_t n;
    const tide_lb_ops *const *all = tide_lb_all(&n);
    const char *name = knob == SHAPE_LB       ? (v >= 0 && (size_t)v < n ? all[v]->name : NULL)
                       : knob == SHAPE_DRIVER ? tide_phase_driver_name(v)
                       : knob == SHAPE_GATE   ? tide_plan_gate_name(v)
                       : knob == SHAPE_COLL   ? tide_phase_coll_name(v)
                                              : NULL;
    if (name)
        snprintf(out, len, "%s", name);
    else if (knob == SHAPE_LB)
        snprintf(out, len, "an unknown name");
    else
        snprintf(out, len, "%d", v);
}

static int check_same_shape(tide_rt *rt)
{
    static const char *const names[SHAPE_KNOBS] = {"TIDE_LB",         "TIDE_PHASE_DRIVER",
                                                   "TIDE_PLAN_GATE",  "TIDE_SYNC_EVERY",
                                                   "TIDE_PHASE_COLL", "TIDE_GLOBAL_LB"};
    long long v[SHAPE_KNOBS] = {lb_index(rt->cfg.lb), rt->cfg.phase_driver,
                                rt->cfg.plan_gate,    rt->cfg.sync_every,
                                rt->cfg.phase_coll,   name_hash(rt->cfg.global_lb)};
    long long lo[SHAPE_KNOBS], hi[SHAPE_KNOBS];
    int k = tide_agree_values(rt->mpi_comm, v, SHAPE_KNOBS, lo, hi);
    if (k < 0) return TIDE_OK;
    if (k == SHAPE_GLOBAL) /* a hash: only this rank's name is known here */
        return tide_fail(TIDE_ERR_CONFIG,
                         "%s differs between ranks (rank %d has %s); give every rank the same "
                         "value (Open MPI's mpirun passes a variable to other nodes with -x %s)",
                         names[k], rt->rank, rt->cfg.global_lb, names[k]);
    char from[64], to[64];
    shape_value(k, (int)lo[k], from, sizeof from);
    shape_value(k, (int)hi[k], to, sizeof to);
    return tide_fail(TIDE_ERR_CONFIG,
                     "%s differs between ranks (from %s to %s); give every rank the same value "
                     "(Open MPI's mpirun passes a variable to other nodes with -x %s)",
                     names[k], from, to, names[k]);
}

/* Rank 0 writes the statistics files: it creates them now, so that a path it cannot write fails
 * here rather than after the run. */
static int open_outputs(tide_rt *rt)
{
    if (rt->rank != 0) return TIDE_OK;
    int rc = TIDE_OK;
    if (rt->cfg.stats_path[0])
        rc = tide_outfile_open(&rt->stats_file, "TIDE_STATS", rt->cfg.stats_path);
    if (rc == TIDE_OK && rt->cfg.objects_stats_path[0])
        rc = tide_outfile_open(&rt->objects_stats_file, "TIDE_OBJECTS_STATS",
                               rt->cfg.objects_stats_path);
    return rc;
}

static int write_stats(tide_rt *rt)
{
    FILE *f = tide_outfile_begin(&rt->stats_file);
    if (!f) return TIDE_ERR_INVALID;
    tide_stats_write_json(&rt->log, &rt->cfg, &rt->node, f);
    return tide_outfile_end(&rt->stats_file, f);
}

/* Rank 0 at finalize: says every failure, returns the first. */
static void keep_first(int *rc, int this_rc)
{
    if (this_rc == TIDE_OK) return;
    fprintf(stderr, "tide: %s\n", tide_last_error_message());
    if (*rc == TIDE_OK) *rc = this_rc;
}

static void rt_free(tide_rt *rt)
{
    tide_outfile_close(&rt->stats_file);
    tide_outfile_close(&rt->objects_stats_file);
    tide_queue_destroy(&rt->local);
    tide_queue_destroy(&rt->remote);
    tide_queue_destroy(&rt->results);
    tide_cancels_destroy(rt);
    pthread_mutex_destroy(&rt->idle_lock);
    pthread_mutex_destroy(&rt->turn_lock);
    pthread_cond_destroy(&rt->work_cv);
    pthread_cond_destroy(&rt->comm_cv);
    pthread_cond_destroy(&rt->drive_cv);
    pthread_cond_destroy(&rt->call_cv);
    tide_stats_free(&rt->log);
    tide_trace_discard(rt);
    free(rt->slots);
    for (int k = 0; rt->deal && k < rt->threads; k++)
        free(rt->deal[k].at);
    free(rt->deal);
    free(rt->marks.at);
    free(rt->marks.queued);
    free(rt);
    tide_task_spares_free();
}

static int init_fail(tide_rt *rt, int rc)
{
    if (rt->data_comm != MPI_COMM_NULL) MPI_Comm_free(&rt->data_comm);
    if (rt->coll_comm != MPI_COMM_NULL) MPI_Comm_free(&rt->coll_comm);
    if (rt->mpi_comm != MPI_COMM_NULL) MPI_Comm_free(&rt->mpi_comm);
    tide_fnid_finalize();
    if (rt->mpi_owned) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Finalize();
    }
    rt_free(rt);
    return rc;
}

int tide_init(int *argc, char ***argv)
{
    return tide_init_comm(MPI_COMM_WORLD, argc, argv);
}

int tide_init_comm(MPI_Comm comm, int *argc, char ***argv)
{
    if (tide_rt_global) return tide_fail(TIDE_ERR_STATE, "tide_init called twice");
    tide_rt *rt = calloc(1, sizeof *rt);
    if (!rt) return tide_fail(TIDE_ERR_NOMEM, "out of memory");
    tide_queue_init(&rt->local);
    tide_queue_init(&rt->remote);
    tide_queue_init(&rt->results);
    tide_cancels_init(rt);
    pthread_mutex_init(&rt->idle_lock, NULL);
    pthread_mutex_init(&rt->turn_lock, NULL);
    pthread_cond_init(&rt->work_cv, NULL);
    pthread_cond_init(&rt->comm_cv, NULL);
    pthread_cond_init(&rt->drive_cv, NULL);
    pthread_cond_init(&rt->call_cv, NULL);
    rt->mpi_comm = rt->data_comm = rt->coll_comm = MPI_COMM_NULL;

    int rc = init_mpi(rt, comm, argc, argv);
    if (rc != TIDE_OK && rt->size == 0) { /* MPI itself is unusable: nobody to agree with */
        fprintf(stderr, "tide: %s\n", tide_last_error_message());
        return init_fail(rt, rc);
    }
    if (agree(rt, rc, TIDE_ERR_MPI) != TIDE_OK) return init_fail(rt, rc);
    char err[512], warn[512];
    rc = tide_config_load(&rt->cfg, err, sizeof err, warn, sizeof warn);
    if (rc != TIDE_OK) tide_fail(rc, "%s", err);
    if (rc == TIDE_OK) {
        rc = tide_clock_setup(rt->cfg.clock, err, sizeof err);
        if (rc != TIDE_OK) tide_fail(rc, "%s", err);
    }
    rc = agree(rt, rc, TIDE_ERR_CONFIG);
    if (rc == TIDE_OK && rt->rank == 0 && warn[0]) fprintf(stderr, "tide: warning: %s\n", warn);
    if (rc == TIDE_OK && rt->cfg.verbose)
        fprintf(stderr, "tide: rank %d: clock %s\n", rt->rank, tide_clock_name());
    if (rc == TIDE_OK) rc = agree(rt, open_outputs(rt), TIDE_ERR_CONFIG);
    if (rc == TIDE_OK) rc = agree(rt, tide_trace_create(rt), TIDE_ERR_CONFIG);
    if (rc == TIDE_OK) rc = agree(rt, tide_comm_cpu_check(rt), TIDE_ERR_CONFIG);
    if (rc == TIDE_OK) rc = agree(rt, check_same_shape(rt), TIDE_ERR_CONFIG);
    if (rc == TIDE_OK && rt->cfg.check_exe)
        rc = agree(rt, check_same_executable(rt), TIDE_ERR_MISMATCH);
    if (rc == TIDE_OK) rc = agree(rt, tide_fnid_init(), TIDE_ERR_STATE);
    if (rc != TIDE_OK) return init_fail(rt, rc);

    rc = tide_lb_host_init(rt, err, sizeof err);
    if (rc == TIDE_OK) rc = tide_predict_init(rt, err, sizeof err);
    if (rc != TIDE_OK) tide_fail(rc, "%s", err);
    if (agree(rt, rc, TIDE_ERR_CONFIG) != TIDE_OK) {
        tide_predict_finalize(rt);
        tide_lb_host_free(rt);
        return init_fail(rt, TIDE_ERR_CONFIG);
    }
    if (rt->rank == 0 && rt->size > 1 && rt->cfg.sync_every > 1 && !rt->inline_phases)
        fprintf(stderr,
                "tide: warning: TIDE_SYNC_EVERY=%d applies where no task moves (TIDE_LB=none); "
                "under %s the ranks agree at every phase\n",
                rt->cfg.sync_every, rt->cfg.lb);
    rt->threads = rt->cfg.threads > 0 ? rt->cfg.threads : omp_get_max_threads();
    tide_node_probe(rt);
    rt->log.nranks = rt->size;
    rt->log.threads = rt->threads;
    /* Every phase's records only where they are written at finalize (stats.c). */
    rt->log.keep_all = rt->rank == 0 && (rt->cfg.stats_path[0] || rt->cfg.trace_path[0]);
    /* Every rank gathers the records where rank 0 keeps them, else reduces the sums (phase.c):
     * the same collective on every rank, whatever each one's environment says. */
    int gather = rt->log.keep_all;
    MPI_Bcast(&gather, 1, MPI_INT, 0, rt->mpi_comm);
    rt->log.gather = gather;
    rt->slots = aligned_alloc(TIDE_CACHELINE, (size_t)rt->threads * sizeof *rt->slots);
    if (!rt->slots) {
        tide_predict_finalize(rt);
        tide_lb_host_free(rt);
        return init_fail(rt, tide_fail(TIDE_ERR_NOMEM, "out of memory"));
    }
    MPI_Comm_dup(rt->mpi_comm, &rt->data_comm);
    MPI_Comm_dup(rt->mpi_comm, &rt->coll_comm);
    if (rt->trace) tide_trace_start(rt);
    tide_rt_global = rt;
    rc = tide_pool_start(rt);
    if (rc == TIDE_OK) {
        rc = tide_comm_start(rt);
        if (rc != TIDE_OK) tide_pool_stop(rt);
    }
    if (rc != TIDE_OK) {
        tide_rt_global = NULL;
        tide_predict_finalize(rt);
        tide_lb_host_free(rt);
        return init_fail(rt, rc);
    }
    tide_config_forget_api_values();
    return TIDE_OK;
}

/* TIDE_WAIT_PROGRESS=auto: the application thread drives a protocol phase after one shorter. */
#define DRIVE_BELOW_S 1e-3

int tide_taskwait(void)
{
    tide_rt *rt = tide_rt_global;
    if (!rt) return tide_fail(TIDE_ERR_STATE, "tide_taskwait before tide_init");
    if (omp_in_parallel())
        return tide_fail(TIDE_ERR_STATE, "tide_taskwait inside an OpenMP parallel region; call it "
                                         "from one thread per rank");
    /* in_taskwait becomes true under local.lock only: a plain load and store (each locked
     * instruction costs about 20 cycles of a phase of a microsecond). From here submissions are
     * refused; one that passed its check before runs in this phase or the next. */
    pthread_mutex_lock(&rt->local.lock);
    if (atomic_load_explicit(&rt->in_taskwait, memory_order_relaxed)) {
        pthread_mutex_unlock(&rt->local.lock);
        return tide_fail(TIDE_ERR_STATE, "tide_taskwait is already running on this rank");
    }
    atomic_store_explicit(&rt->in_taskwait, true, memory_order_relaxed);
    rt->last_deferred = false; /* (a phase through the protocol writes `last` itself) */
    /* No task moves (a strategy that never acts, or one the plan gate holds idle): this thread
     * runs the phase (phase.c), its tasks dealt to the workers' shares under the admission's
     * lock (a second lock pair was a twentieth of a one-rank Task Bench `stencil_1d` phase); a
     * lone worker's, where their priorities leave them in submission order, straight from the
     * admission, without the queue (its push, take and deal cost some 120 instructions of a
     * one-rank Task Bench `stencil_1d` step, whose Tide part is about 1,900). */
    bool inline_now = rt->inline_phases || rt->gate.idle_next;
    long n;
    tide_task *admitted = tide_task_admit(rt, &n);
    rt->phase_tasks = n;
    bool dealt = inline_now && n > 0 && rt->threads == 1 && tide_workers_deal_lone(rt, admitted, n);
    if (!dealt) {
        tide_queue_push_list_locked(&rt->local, admitted);
        dealt = inline_now && n > 0 && tide_workers_deal(rt);
    }
    pthread_mutex_unlock(&rt->local.lock);
    tide_outstanding_add(rt, inline_now && rt->threads == 1, n); /* as tide_task_completed */
    memset(rt->slots, 0, (size_t)rt->threads * sizeof *rt->slots);
    rt->phase_start = tide_now();
    /* (read by the workers, which the pool's lock or this thread orders after it) */
    atomic_store_explicit(&rt->inline_now, inline_now, memory_order_release);
    rt->hold_own = !inline_now && tide_proto_hold_own(rt->lb.ops->flags, (double)rt->phase_tasks,
                                                      rt->threads, rt->plan_at, rt->last_phase_s);
    rt->driven = false; /* (set below for a phase through the protocol) */
    if (inline_now) {
        tide_protocol_inline_begin(rt->protocol);
        /* The phase's first clock reading starts its first task too, where nothing ran between
         * them (a prediction to make could take microseconds). */
        if (rt->phase_tasks > 0) {
            if (dealt) rt->dealt = true; /* (the pool's start orders it before the workers) */
            tide_pool_run_phase(rt, rt->predicting || rt->trace ? 0 : rt->phase_start);
            if (dealt) rt->dealt = false;
        }
        tide_protocol_inline_end(rt->protocol);
    } else {
        atomic_store_explicit(&rt->phase_requested, rt->phase + 1, memory_order_release);
        /* This thread starts the phase itself where it drives (worker.c), else the comm thread.
         * `auto` drives phases that follow one shorter than DRIVE_BELOW_S: there a wake-up is a
         * large part of the phase, and longer ones may carry transfers that the hand-back to a
         * thread that must first wake would pause (docs/performance.md, section 15). */
        rt->driven = rt->drive_step && (rt->cfg.wait_progress == TIDE_WAIT_PROGRESS_APP ||
                                        (rt->phase > 0 && rt->last_phase_s < DRIVE_BELOW_S));
        if (rt->driven)
            atomic_store_explicit(&rt->app_driving, true, memory_order_release);
        else
            tide_comm_wake(rt);
        tide_pool_run_phase(rt, 0);
    }
    /* An inline phase's record read the clock after its tasks (phase.c, fill_record); only
     * the trace and the plan gate need the end of the allreduce too. */
    double end = inline_now && !rt->trace && !rt->gate.on ? rt->phase_end : tide_now();
    if (rt->trace) tide_trace_phase(rt->trace, rt->phase, rt->phase_tasks, rt->phase_start, end);
    rt->last_phase_s = end - rt->phase_start;
    tide_plan_gate_ended(&rt->gate, inline_now, rt->last_phase_s);
    rt->phase++;
    atomic_store_explicit(&rt->in_taskwait, false, memory_order_release);
    return TIDE_OK;
}

int tide_finalize(void)
{
    tide_rt *rt = tide_rt_global;
    if (!rt) return tide_fail(TIDE_ERR_STATE, "tide_finalize without tide_init");
    if (atomic_load(&rt->in_taskwait))
        return tide_fail(TIDE_ERR_STATE, "tide_finalize during tide_taskwait");
    /* The objects layer, if the program used it and did not finalize it itself. */
    int objects_rc = rt->finalize_layer ? rt->finalize_layer() : TIDE_OK;
    /* Tasks submitted after the last taskwait never ran: say so rather than drop them quietly. */
    long leftover = 0;
    long admitted; /* (the pops below count them, with anything else still queued) */
    pthread_mutex_lock(&rt->local.lock);
    tide_queue_push_list_locked(&rt->local, tide_task_admit(rt, &admitted));
    pthread_mutex_unlock(&rt->local.lock);
    for (tide_task *t; (t = tide_queue_pop_front(&rt->local)); leftover++)
        tide_task_free(t);
    if (leftover)
        fprintf(stderr,
                "tide: rank %d: %ld submitted tasks were never run (no tide_taskwait "
                "after their submission)\n",
                rt->rank, leftover);
    tide_comm_stop(rt);
    tide_pool_stop(rt);
    int rc = objects_rc, trace_rc = tide_trace_finish(rt);
    if (rt->rank == 0) {
        if (rc != TIDE_OK) fprintf(stderr, "tide: %s\n", tide_last_error_message());
        keep_first(&rc, trace_rc);
        if (rt->cfg.stats_path[0]) keep_first(&rc, write_stats(rt));
        keep_first(&rc, tide_outfile_close(&rt->stats_file));
        keep_first(&rc, tide_outfile_close(&rt->objects_stats_file));
        if (!rt->cfg.quiet) tide_stats_print_summary(&rt->log, &rt->cfg, &rt->node, stdout);
    }
    MPI_Comm_free(&rt->data_comm);
    MPI_Comm_free(&rt->coll_comm);
    MPI_Comm_free(&rt->mpi_comm);
    tide_fnid_finalize();
    tide_predict_finalize(rt);
    tide_lb_host_free(rt);
    bool owned = rt->mpi_owned;
    tide_rt_global = NULL;
    rt_free(rt);
    if (owned) MPI_Finalize();
    return rc;
}

int tide_rank(void)
{
    return tide_rt_global ? tide_rt_global->rank : TIDE_ERR_STATE;
}

int tide_size(void)
{
    return tide_rt_global ? tide_rt_global->size : TIDE_ERR_STATE;
}

int tide_num_threads(void)
{
    return tide_rt_global ? tide_rt_global->threads : TIDE_ERR_STATE;
}

int tide_stats_last_phase(tide_phase_stats *out)
{
    tide_rt *rt = tide_rt_global;
    if (!out) return tide_fail(TIDE_ERR_INVALID, "tide_stats_last_phase: out is NULL");
    if (!rt) return tide_fail(TIDE_ERR_STATE, "tide_stats_last_phase before tide_init");
    if (rt->phase == 0) return tide_fail(TIDE_ERR_STATE, "no phase has completed yet");
    if (rt->log.nphases == 0) /* TIDE_SYNC_EVERY > 1: the statistics come with the agreement */
        return tide_fail(TIDE_ERR_STATE,
                         "no phase agreed yet (TIDE_SYNC_EVERY=%d: the ranks first agree at the "
                         "end of phase %d)",
                         rt->cfg.sync_every, rt->cfg.sync_every - 1);
    if (rt->last_deferred) {
        tide_stats_lone_last(&rt->log, tide_protocol_lone_record(rt->protocol), &rt->last);
        rt->last_deferred = false;
    }
    *out = rt->last;
    return TIDE_OK;
}
