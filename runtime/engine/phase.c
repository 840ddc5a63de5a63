/* The phase protocol (termination): the engine core's state machine (runtime/core/src/proto.c,
 * tide_core_proto.h, which decides; tide-sim's comm actor steps the same one), advanced by the
 * comm thread one step per loop turn; this file does what it decides with MPI, the clock, the
 * strategy's calls and the statistics. Every collective runs on coll_comm, or where every rank
 * shares this node through shared memory (nodecoll.c, TIDE_PHASE_COLL), issued in the same order
 * on every rank:
 *   [start sync: status allgather, for strategies that move tasks]
 *   run: until every own task of the phase has completed (locally or with its result home)
 *   end: status allgathers every TIDE_ROUND_US until one shows no outstanding work anywhere
 *        (strategies with rounds), or one status allgather that each rank joins once its own
 *        tasks are complete (without; a barrier where the start sync already agreed on the
 *        phase): then no task of the phase is running or travelling
 *   the statistics: an iallreduce of the phase's sums over the ranks (tide_phase_sums: 32
 *   doubles, whatever the ranks), or where rank 0 keeps every record (TIDE_STATS, TIDE_TRACE)
 *   an iallgather of the records; then the workers are released.
 * tide_finalize ends with one more status allgather, marked finalizing.
 *
 * Under a strategy that never acts (rt->inline_phases) no task moves, so the comm thread has no
 * part in a phase: the application thread runs it in tide_taskwait, as the last step one
 * collective of every rank's step (phase, finalizing) and statistics together (its tasks are
 * complete when it joins, which is the end allgather's rule): an allreduce of the sums with the
 * highest and the lowest step, or, where the records are gathered, an allgather of step and
 * record (where every rank shares one node, both through shared memory: nodecoll.c,
 * TIDE_PHASE_COLL). An empty phase then costs one collective instead of four thread hand-offs and
 * two collectives. These collectives, the closing one of tide_finalize included, have the same
 * shape on every rank, so a mismatched rank still meets the others in one; where the steps differ,
 * every rank sees it in the same result and joins one more allgather, of the steps, that names
 * the ranks. The rest of a status serves only strategies that act. With TIDE_SYNC_EVERY=N > 1
 * a rank holds its phases' steps and records and joins one collective of N elements every N
 * phases (and in tide_finalize, with zero records at its finalizing step past the held ones):
 * the same shapes on every rank again, checked element by element (docs/internals.md).
 *
 * The plan gate (tide_core_proto.h) runs some phases of proact and proact_react inline too,
 * when their plans measured slower than such phases: rt->inline_now says which kind this phase
 * is, the same on every rank.
 *
 * Every status record carries its rank's phase number and whether it is finalizing, and the
 * first collective a rank joins in a phase, or in tide_finalize, has the same shape on every
 * rank: a status allgather where the phase runs the protocol, the inline collective where it
 * does not, and in tide_finalize the one the next phase would start with (the gate's state, the
 * same everywhere). So a rank that called tide_taskwait more or fewer times than the others
 * meets them in a collective of the same shape (not in one that MPI would truncate or never
 * match), every rank sees the mismatch in the same result, and the job ends with one line
 * naming it. */
#include "internal.h"
#include "tide_core_proto.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FUSED_STEP = 1, FUSED_DOUBLES = FUSED_STEP + TIDE_RECORD_DOUBLES };

/* The phase sums' allreduce: one element of TIDE_PHASE_SUMS_DOUBLES doubles (a user operation
 * reads its element whole; MPI does not split one), combined by tide_phase_sums_add. */
static void sums_op_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const tide_phase_sums *a = in;
    tide_phase_sums *b = inout;
    for (int i = 0; i < *len; i++)
        tide_phase_sums_add(&b[i], &a[i]);
}

/* What a collective through shared memory does once every rank's element is in (coll_test). */
typedef enum coll_kind { COLL_NONE, COLL_GATHER, COLL_SUMS, COLL_BARRIER } coll_kind;

struct tide_protocol {
    tide_rt *rt;
    unsigned inline_folded; /* rt->inline_ended when fold_inline last counted them */
    tide_proto proto;       /* the protocol's decisions and this rank's status (runtime/core) */
    /* The protocol's collective in flight (one at a time): MPI's on coll_req, or through the
     * node's shared memory (node) of kind `pending` into `into` (`doubles` a rank). */
    MPI_Request coll_req;
    coll_kind pending;
    int doubles;
    void *into;
    tide_rank_status *all_status;
    tide_rank_status step; /* the closing and inline allgathers' step */
    tide_rank_record mine, *all;
    bool final_posted; /* the closing allgather of tide_finalize */
    bool final_checked;
    /* The inline phases' collective: `every` phases per collective (TIDE_SYNC_EVERY where no
     * task moves, else 1), `held` of them ended since the last one, with their steps and this
     * rank's records. Where records are gathered, per phase the step then the record, this
     * rank's [every] and every rank's [size][every]; else the sums, this rank's and every rank's
     * combined [every]. The held phases are consecutive (every > 1 only where every phase is
     * inline): held phase j's step is held_first + j. */
    int every, held;
    double held_first;
    tide_rank_record *held_mine;
    double *fused_mine, *fused_all;
    tide_phase_sums *inline_mine, *inline_all;
    /* where every rank shares this node (TIDE_PHASE_COLL=auto): every collective of a phase
     * through shared memory (nodecoll.c), else NULL and MPI */
    tide_nodecoll *node;
    /* a protocol phase's sums (!rt->log.gather): this rank's, every rank's combined */
    tide_phase_sums sums_mine, sums_all;
    MPI_Datatype sums_type;
    MPI_Op sums_op;
};

/* This rank's record of the phase that ends, into r; end: the clock reading that ends the
 * phase, or 0 to read the clock now. Each field is set by name (a memset of the whole compiles to
 * a string instruction that costs more than the stores): a new field needs its line here, and
 * this count its term. */
_Static_assert(TIDE_RECORD_DOUBLES == 25, "tide_rank_record has a field fill_record does not set");
static void fill_record(tide_protocol *cs, tide_rank_record *r, double end)
{
    tide_rt *rt = cs->rt;
    double last = 0, L = rt->L_offloaded, L_run = 0, task_max = rt->offload_task_max;
    for (int i = 0; i < rt->threads; i++) {
        tide_worker_slot *s = &rt->slots[i];
        L += s->L_local;
        L_run += s->L_run;
        if (s->executed && s->last_done > last) last = s->last_done;
        if (s->task_max > task_max) task_max = s->task_max;
    }
    r->L = L;
    r->L_run = L_run;
    r->task_max = task_max;
    r->W = last > 0 ? last - rt->phase_start : 0;
    r->L_pred = rt->feed.load;
    r->L_unc = rt->feed.unc;
    r->L_suspect = rt->feed.suspect;
    r->pred_source = rt->feed.source;
    r->pred_model = rt->feed.model_code;
    r->plan_residual = rt->plan_residual;
    r->plan_limit = rt->plan_limit;
    /* one clock reading for the record, the drain and the frequency */
    rt->phase_end = end > 0 ? end : tide_now();
    r->time = rt->phase_end - rt->phase_start;
    r->tasks = (double)rt->phase_tasks;
    r->offloaded = (double)rt->n_offloaded;
    r->received = (double)(rt->n_received - rt->n_cancelled);
    r->cancelled = (double)rt->n_cancelled;
    r->bytes_sent = (double)rt->bytes_sent;
    tide_transport_phase_end(rt, rt->phase_end, &r->send_bw, &r->sent_last);
    r->plan_transfer = rt->plan_transfer;
    r->reclaimed = (double)rt->n_reclaimed;
    r->replicated = (double)rt->n_replicated;
    r->threads = rt->threads;
    r->protocol = !atomic_load_explicit(&rt->inline_now, memory_order_relaxed);
    r->gate_tail = tide_plan_gate_tail(&rt->gate, !r->protocol);
}

/* This rank's own work of the phase that is not over: tasks not completed, and replicas whose
 * holder has not answered yet (a copy may still run there, though the original completed here:
 * the phase must not end while it does, or the holder's records would race with its worker). */
static long own_open(tide_rt *rt)
{
    return atomic_load_explicit(&rt->outstanding, memory_order_acquire) +
           (long)tide_replica_open(rt);
}

static bool add_bytes(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    *(double *)arg += (double)tide_wire_task_size(t);
    return true;
}

/* The mean wire size of the queued own tasks: what moving one costs a plan. */
static double mean_task_bytes(tide_rt *rt)
{
    double sum = 0;
    tide_queue_visit(&rt->local, false, add_bytes, &sum);
    long n = atomic_load(&rt->local.count);
    return n > 0 ? sum / (double)n : 0;
}

/* ---- the protocol's collectives ---------------------------------------------------------------
 *
 * Posted at one turn of the comm loop and tested at the next ones, in the same order on every
 * rank: MPI's nonblocking collectives, or where every rank shares this node the same exchanges
 * through shared memory (nodecoll.c): a rank publishes its element, and once every rank's is in
 * (coll_test) it copies or folds them; it reads all of an exchange before it posts the next, as
 * nodecoll's two slots require. */

/* Every rank's `n` doubles into all, in rank order. */
static void coll_gather(tide_protocol *cs, const double *mine, int n, double *all)
{
    if (!cs->node) {
        MPI_Iallgather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, cs->rt->coll_comm, &cs->coll_req);
        return;
    }
    tide_nodecoll_publish(cs->node, mine, (size_t)n * sizeof(double));
    cs->pending = COLL_GATHER, cs->doubles = n, cs->into = all;
}

/* Every rank's n sums combined (tide_phase_sums_add) into all[0 .. n-1]. */
static void coll_sums(tide_protocol *cs, const tide_phase_sums *mine, int n, tide_phase_sums *all)
{
    if (!cs->node) {
        MPI_Iallreduce(mine, all, n, cs->sums_type, cs->sums_op, cs->rt->coll_comm, &cs->coll_req);
        return;
    }
    tide_nodecoll_publish(cs->node, mine, (size_t)n * sizeof *mine);
    cs->pending = COLL_SUMS, cs->doubles = n * (int)TIDE_PHASE_SUMS_DOUBLES, cs->into = all;
}

static void coll_barrier(tide_protocol *cs)
{
    if (!cs->node) {
        MPI_Ibarrier(cs->rt->coll_comm, &cs->coll_req);
        return;
    }
    tide_nodecoll_publish(cs->node, NULL, 0);
    cs->pending = COLL_BARRIER;
}

/* The shared-memory exchange posted last into its result: every rank's element read (waiting
 * for those not in yet), copied in rank order or folded in rank order (the same result on every
 * rank, as the plan gate needs). */
static void coll_complete(tide_protocol *cs)
{
    int size = cs->rt->size;
    if (cs->pending == COLL_GATHER) {
        size_t bytes = (size_t)cs->doubles * sizeof(double);
        for (int r = 0; r < size; r++)
            memcpy((double *)cs->into + (size_t)r * (size_t)cs->doubles,
                   tide_nodecoll_peer(cs->node, r), bytes);
    } else if (cs->pending == COLL_SUMS) {
        tide_phase_sums *all = cs->into;
        int n = cs->doubles / (int)TIDE_PHASE_SUMS_DOUBLES;
        memcpy(all, tide_nodecoll_peer(cs->node, 0), (size_t)n * sizeof *all);
        for (int r = 1; r < size; r++) {
            const tide_phase_sums *s = tide_nodecoll_peer(cs->node, r);
            for (int j = 0; j < n; j++)
                tide_phase_sums_add(&all[j], &s[j]);
        }
    } else if (cs->pending == COLL_BARRIER) {
        for (int r = 0; r < size; r++)
            tide_nodecoll_peer(cs->node, r);
    }
    cs->pending = COLL_NONE;
}

/* Whether the collective posted last is complete (its result in place); true once done, and
 * where none was posted. Never waits. */
static bool coll_test(tide_protocol *cs)
{
    if (!cs->node) {
        int flag = 0;
        MPI_Test(&cs->coll_req, &flag, MPI_STATUS_IGNORE);
        return flag;
    }
    if (cs->pending == COLL_NONE) return true;
    if (!tide_nodecoll_done(cs->node)) return false;
    coll_complete(cs);
    return true;
}

/* A status allgather: POST_START's carries what moving costs (the queued tasks' mean bytes). */
static void allgather_status(tide_protocol *cs, bool start)
{
    tide_rt *rt = cs->rt;
    tide_proto_numbers n = {
        .ntasks = (double)rt->phase_tasks,
        .L_pred = rt->feed.load,
        .queued = (double)atomic_load(&rt->local.count),
        .queued_in = (double)atomic_load(&rt->remote.count),
        .outstanding = (double)own_open(rt),
        .task_pred = tide_predict_task_ready(rt),
        .L_unc = rt->feed.unc,
        .L_suspect = rt->feed.suspect,
        .threads = rt->threads,
        .task_bytes = start ? mean_task_bytes(rt) : 0,
        .send_bw = tide_transport_send_bw(rt),
        .plan_moving = tide_transport_plan_moving(rt),
        .plan_at = rt->plan_at,
    };
    coll_gather(cs, (const double *)tide_proto_status(&cs->proto, &n), TIDE_STATUS_DOUBLES,
                (double *)cs->all_status);
}

/* ---- phase agreement ------------------------------------------------------------------------- */

/* Every rank finds the same mismatch in the same records; rank 0 says it, in one line, and ends
 * the job. */
static _Noreturn void phase_mismatch(tide_protocol *cs)
{
    char msg[512];
    tide_proto_mismatch_line(cs->all_status, cs->rt->size, msg, sizeof msg);
    if (cs->rt->rank == 0) {
        fprintf(stderr,
                "tide: phase mismatch: %s (phase N is a rank's N-th tide_taskwait; every rank "
                "must call it equally often)\n",
                msg);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 70);
    }
    /* The other ranks stay quiet, so that the line appears once: rank 0's abort ends them, and
     * should it not come they abort themselves. */
    sleep(10);
    MPI_Abort(MPI_COMM_WORLD, 70);
    abort();
}

/* After the inline and closing allgathers: every rank must be at the same step. */
static void check_phases(tide_protocol *cs)
{
    if (!tide_proto_steps_agree(cs->all_status, cs->rt->size)) phase_mismatch(cs);
}

static void run_begin(tide_protocol *cs, const tide_rank_status *all)
{
    tide_rt *rt = cs->rt;
    tide_lb_phase_begin(rt, all);
    rt->plan_at = tide_now() - rt->phase_start;
    atomic_store_explicit(&rt->plan_ready, cs->proto.nphases + 1, memory_order_release);
    /* Only workers held back for the plan need waking (tasks arriving wake them themselves);
     * a needless broadcast costs more than an empty phase's whole protocol. */
    if (rt->hold_own && atomic_load(&rt->local.count) > 0) tide_workers_wake(rt);
}

static void gather_records(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    fill_record(cs, &cs->mine, 0);
    if (rt->log.gather) {
        coll_gather(cs, (const double *)&cs->mine, TIDE_RECORD_DOUBLES, (double *)cs->all);
        return;
    }
    tide_phase_sums_of(&cs->mine, rt->threads, &cs->sums_mine);
    coll_sums(cs, &cs->sums_mine, 1, &cs->sums_all);
}

/* The plan gate takes the phase's numbers, the same on every rank (tide_core_proto.h). */
static void gate_phase(tide_rt *rt, const tide_phase_sums *s, bool idle)
{
    tide_gate_phase ph = {.idle = idle,
                          .predicted = s->predicted == rt->size,
                          .time = s->time,
                          .tail = s->gate_tail,
                          .own = s->own_load,
                          .mean = s->workers > 0 ? 1e-9 * s->L_ns / s->workers : 0,
                          .busy = s->W_max};
    tide_plan_gate_end(&rt->gate, &ph);
}

/* A phase's statistics are every rank's (its records in cs->all, or its sums, with this rank's
 * record): the log and tide_stats_last_phase take them. */
static void phase_log(tide_protocol *cs, const tide_phase_sums *sums, const tide_rank_record *mine)
{
    tide_rt *rt = cs->rt;
    int rc = rt->log.gather ? tide_stats_add_phase(&rt->log, cs->all, rt->rank, &rt->last)
                            : tide_stats_add_sums(&rt->log, sums, mine, &rt->last);
    if (rc != TIDE_OK) tide_fatal("out of memory recording phase statistics");
}

/* Phase `count` (1 for the first) is over. The plan gate takes its agreed numbers (cs->all, or
 * sums): where the gate is on, every phase is agreed as it ends. */
static void phase_close(tide_protocol *cs, int count, bool idle, const tide_phase_sums *sums)
{
    tide_rt *rt = cs->rt;
    if (rt->gate.on) {
        tide_phase_sums gathered;
        if (rt->log.gather) tide_phase_sums_of_all(cs->all, rt->size, rt->threads, &gathered);
        gate_phase(rt, rt->log.gather ? &gathered : sums, idle);
    }
    tide_predict_phase_ended();
    rt->running = false;
    atomic_store_explicit(&rt->phase_done, count, memory_order_release);
}

static void phase_finish(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    phase_log(cs, &cs->sums_all, &cs->mine);
    phase_close(cs, cs->proto.nphases, false, &cs->sums_all);
    tide_workers_wake(rt);
    /* The application runs again: the model learns (and may retrain) meanwhile. */
    tide_predict_observe(rt, cs->mine.L, cs->proto.nphases);
}

/* Phase `phase` (0 for the first) starts: counters to zero, the prediction it is judged by. */
static void phase_open(tide_protocol *cs, int phase)
{
    tide_rt *rt = cs->rt;
    rt->n_offloaded = rt->n_received = rt->n_cancelled = rt->n_reclaimed = 0;
    rt->n_replicated = 0;
    rt->plan_transfer = -1;
    rt->bytes_sent = 0;
    rt->L_offloaded = rt->offload_task_max = 0;
    rt->plan_residual = 0;
    rt->plan_limit = -1;
    tide_predict_phase(rt);
    rt->cphase = phase;
    rt->running = true;
}

/* The step of element j of the inline collective: a held phase's, or past them this rank's
 * current one (cs->step, tide_finalize's finalizing step). */
static double element_step(const tide_protocol *cs, int j)
{
    return j < cs->held ? cs->held_first + j : cs->step.phase;
}

/* Element j of the gathered inline collective into all_status and all (every rank's). */
static void gathered_element(tide_protocol *cs, int j)
{
    for (int i = 0; i < cs->rt->size; i++) {
        const double *f =
            cs->fused_all + ((size_t)i * (size_t)cs->every + (size_t)j) * FUSED_DOUBLES;
        cs->all_status[i] = (tide_rank_status){.phase = f[0]};
        memcpy(&cs->all[i], f + FUSED_STEP, sizeof cs->all[i]);
    }
}

/* fused_mine's first `doubles` of every rank into fused_all, in rank order. */
static void inline_allgather(tide_protocol *cs, int doubles)
{
    if (!cs->node) {
        MPI_Allgather(cs->fused_mine, doubles, MPI_DOUBLE, cs->fused_all, doubles, MPI_DOUBLE,
                      cs->rt->coll_comm);
        return;
    }
    coll_gather(cs, cs->fused_mine, doubles, cs->fused_all);
    coll_complete(cs);
}

/* inline_mine's first n sums of every rank combined into inline_all. Through shared memory every
 * rank folds the same elements in the same (rank) order: the same result everywhere, as the
 * plan gate needs. */
static void inline_allreduce(tide_protocol *cs, int n)
{
    if (!cs->node) {
        MPI_Allreduce(cs->inline_mine, cs->inline_all, n, cs->sums_type, cs->sums_op,
                      cs->rt->coll_comm);
        return;
    }
    coll_sums(cs, cs->inline_mine, n, cs->inline_all);
    coll_complete(cs);
}

/* The inline phases' collective, or tide_finalize's: one element per phase of a batch (`every`),
 * the held phases' steps and records, and past them zero records at this rank's current step, so
 * that every rank's collective has the same shape wherever each one is. Gathered, every rank's
 * steps and records into fused_all, or reduced, the sums into inline_all; the steps checked
 * element by element. */
static void fused_exchange(tide_protocol *cs)
{
    static const tide_rank_record no_record;
    tide_rt *rt = cs->rt;
    const int n = cs->every;
    if (rt->log.gather) {
        for (int j = 0; j < n; j++) {
            double *f = cs->fused_mine + (size_t)j * FUSED_DOUBLES;
            f[0] = element_step(cs, j);
            memcpy(f + FUSED_STEP, j < cs->held ? &cs->held_mine[j] : &no_record, sizeof no_record);
        }
        if (rt->size > 1) /* a lone rank's result is its own (fused_all is fused_mine) */
            inline_allgather(cs, n * FUSED_DOUBLES);
        for (int j = 0; j < n; j++) {
            gathered_element(cs, j);
            check_phases(cs);
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        tide_phase_sums *m = &cs->inline_mine[j];
        tide_phase_sums_of(j < cs->held ? &cs->held_mine[j] : &no_record, rt->threads, m);
        m->step_hi = element_step(cs, j);
        m->step_neg = -m->step_hi;
    }
    if (rt->size > 1) /* a lone rank's result is its own (inline_all is inline_mine) */
        inline_allreduce(cs, n);
    for (int j = 0; j < n; j++) {
        if (cs->inline_all[j].step_hi == -cs->inline_all[j].step_neg) continue;
        /* Every rank saw the same disagreement at the same element: all join this allgather of
         * their steps there, which names the ranks. */
        double step = element_step(cs, j), *steps = cs->fused_all;
        MPI_Allgather(&step, 1, MPI_DOUBLE, steps, 1, MPI_DOUBLE, rt->coll_comm);
        for (int i = 0; i < rt->size; i++)
            cs->all_status[i] = (tide_rank_status){.phase = steps[i]};
        phase_mismatch(cs);
    }
}

/* The held phases agreed (fused_exchange): each into the log, in order. */
static void log_held(tide_protocol *cs)
{
    for (int j = 0; j < cs->held; j++) {
        if (cs->rt->log.gather) gathered_element(cs, j);
        phase_log(cs, &cs->inline_all[j], &cs->held_mine[j]);
    }
}

/* The core's state stays IDLE: the comm thread reads it (tide_protocol_idle), and for the comm
 * thread no phase runs. */
void tide_protocol_inline_begin(tide_protocol *cs)
{
    phase_open(cs, cs->rt->phase);
}

void tide_protocol_inline_end(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (own_open(rt) != 0) tide_fatal("an inline phase ends with %ld own tasks open", own_open(rt));
    /* A lone rank's phase is its own: no collective, no steps to compare, its record its sums
     * (where nothing keeps records, and no gate reads the sums). */
    const bool lone = rt->size == 1 && !rt->log.gather && !rt->gate.on;
    if (!lone && cs->held == 0) cs->held_first = rt->phase + 1;
    tide_rank_record *mine = &cs->held_mine[lone ? 0 : cs->held++];
    /* A lone worker ran every task, the last one just before: the reading that ended it ends
     * the phase (worker.c). */
    fill_record(cs, mine, rt->threads == 1 && rt->slots[0].executed ? rt->slots[0].last_done : 0);
    if (lone) {
        tide_stats_add_lone(&rt->log, mine, NULL);
        rt->last_deferred = true;
    } else if (cs->held == cs->every) {
        /* Where the gate is on, every == 1: the gate takes this phase's agreed numbers below. */
        fused_exchange(cs);
        log_held(cs);
        cs->held = 0;
    }
    /* The phase ran outside the core's state machine, which the comm thread alone steps: it
     * counts the phase at its next turn (fold_inline). */
    atomic_store_explicit(&rt->inline_ended,
                          atomic_load_explicit(&rt->inline_ended, memory_order_relaxed) + 1,
                          memory_order_release);
    phase_close(cs, rt->phase + 1, true, &cs->inline_all[0]);
    tide_predict_observe(rt, mine->L, rt->phase + 1);
}

const tide_rank_record *tide_protocol_lone_record(const tide_protocol *cs)
{
    return &cs->held_mine[0];
}

/* The comm thread counts the inline phases into the core's phases (the step numbers). */
static void fold_inline(tide_protocol *cs)
{
    unsigned ended = atomic_load_explicit(&cs->rt->inline_ended, memory_order_acquire);
    cs->proto.nphases += (int)(ended - cs->inline_folded); /* fewer than 2^31 between turns */
    cs->inline_folded = ended;
}

/* One turn: the core decides (runtime/core/src/proto.c), this file does: MPI, the clock, the
 * strategy's calls, statistics and the prediction. */
bool tide_protocol_step(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (rt->inline_phases) return false; /* the application thread runs each phase */
    tide_proto *p = &cs->proto;
    if (tide_proto_progress(p)) tide_lb_progress(rt);
    unsigned need = tide_proto_needs(p);
    tide_proto_input in = {0};
    if (need & TIDE_PROTO_NEED_REQUESTED) {
        in.requested = atomic_load_explicit(&rt->phase_requested, memory_order_acquire);
        /* After the request's load: an inline phase before the requested one was counted
         * before the request was made. */
        fold_inline(cs);
    }
    if (need & TIDE_PROTO_NEED_COLL) {
        in.coll_done = coll_test(cs);
        in.all = cs->all_status;
    }
    if (need & TIDE_PROTO_NEED_OPEN) in.own_open = own_open(rt);
    if (need & TIDE_PROTO_NEED_NOW) in.now = tide_now();
    tide_proto_action a = tide_proto_step(p, &in);
    if (!a.what) return false;
    if (a.what & TIDE_PROTO_DO_MISMATCH) phase_mismatch(cs);
    if (a.what & TIDE_PROTO_DO_OPEN) phase_open(cs, p->nphases);
    if (a.what & (TIDE_PROTO_DO_BEGIN | TIDE_PROTO_DO_ROUND)) {
        if (a.what & TIDE_PROTO_DO_BEGIN)
            run_begin(cs, a.all);
        else
            tide_lb_round(rt, a.all);
        tide_proto_round_next(p, tide_now(), tide_host_rounds_needed(&rt->lb));
    }
    if (a.what & (TIDE_PROTO_DO_POST_START | TIDE_PROTO_DO_POST_STATUS))
        allgather_status(cs, a.what & TIDE_PROTO_DO_POST_START);
    if (a.what & TIDE_PROTO_DO_POST_BARRIER) coll_barrier(cs);
    if (a.what & TIDE_PROTO_DO_POST_RECORDS) gather_records(cs);
    if (a.what & TIDE_PROTO_DO_FINISH) phase_finish(cs);
    return true;
}

/* tide_finalize: a rank leaves only when its own sends completed and every rank got there, so
 * that a message still travelling (a late result, a stale request) always finds a receiver.
 * "Got there" is a status allgather marked finalizing: a rank still running phases meets it
 * with its own, and the phase check names the mismatch. */
bool tide_protocol_closing_done(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (!cs->final_posted) {
        if (!tide_transport_idle(rt) || atomic_load(&rt->results.count) || tide_replica_open(rt))
            return false;
        rt->stopping = true;
        fold_inline(cs);
        cs->step = (tide_rank_status){.phase = tide_proto_finalizing_step(cs->proto.nphases)};
        /* The closing collective has the shape of the next phase's first one, on every rank. */
        if (rt->inline_phases || rt->gate.idle_next) {
            /* The shape of an inline phase's collective (the phases still held, then zero
             * records), and blocking as that one is: MPI matches no blocking collective with a
             * nonblocking one. Nothing can arrive meanwhile: under a strategy that never acts no
             * rank sends a message. */
            fused_exchange(cs);
            log_held(cs);
            cs->held = 0;
            cs->final_posted = cs->final_checked = true;
            cs->coll_req = MPI_REQUEST_NULL; /* what the next call tests */
            return tide_transport_idle(rt);
        }
        coll_gather(cs, (const double *)&cs->step, TIDE_STATUS_DOUBLES, (double *)cs->all_status);
        cs->final_posted = true;
        return false;
    }
    bool flag = coll_test(cs);
    if (flag && !cs->final_checked) {
        check_phases(cs);
        cs->final_checked = true;
    }
    return flag && tide_transport_idle(rt);
}

bool tide_protocol_idle(const tide_protocol *cs)
{
    return tide_proto_idle(&cs->proto);
}

int tide_protocol_create(tide_rt *rt, tide_protocol **out)
{
    *out = NULL;
    /* Where the gate may hold phases idle (a strategy that acts), every phase is agreed as it
     * ends: the gate compares each. */
    const int every = rt->inline_phases && rt->size > 1 ? rt->cfg.sync_every : 1;
    const size_t n = (size_t)every;
    tide_protocol *cs = calloc(1, sizeof *cs);
    if (cs) {
        cs->every = every;
        cs->all_status = calloc((size_t)rt->size, sizeof *cs->all_status);
        cs->all = calloc((size_t)rt->size, sizeof *cs->all);
        cs->held_mine = calloc(n, sizeof *cs->held_mine);
        cs->fused_mine = calloc(n * FUSED_DOUBLES, sizeof(double));
        cs->inline_mine = calloc(n, sizeof *cs->inline_mine);
        /* A lone rank's collectives give back what it gives: no second buffer, no copy. */
        cs->fused_all = rt->size > 1 ? calloc((size_t)rt->size * n * FUSED_DOUBLES, sizeof(double))
                                     : cs->fused_mine;
        cs->inline_all = rt->size > 1 ? calloc(n, sizeof *cs->inline_all) : cs->inline_mine;
    }
    if (!cs || !cs->all_status || !cs->all || !cs->held_mine || !cs->fused_mine || !cs->fused_all ||
        !cs->inline_mine || !cs->inline_all) {
        tide_protocol_destroy(cs);
        return tide_fail(TIDE_ERR_NOMEM, "out of memory starting the comm thread");
    }
    if (rt->size > 1 && rt->cfg.phase_coll == TIDE_PHASE_COLL_AUTO) {
        /* Collective: every rank gets here with the same size and TIDE_PHASE_COLL, strategy
         * and gate (checked at init), and the element's size follows from values every rank
         * agrees on. */
        /* one element: the largest of every phase of a batch, as fused_exchange gives them
         * (inline_allgather, inline_allreduce), and the protocol's status, record and sums */
        size_t inline_element =
            n * (rt->log.gather ? FUSED_DOUBLES * sizeof(double) : sizeof(tide_phase_sums));
        size_t element = inline_element;
        const size_t protocol[] = {sizeof(tide_rank_status), sizeof(tide_rank_record),
                                   sizeof(tide_phase_sums)};
        for (size_t k = 0; k < sizeof protocol / sizeof *protocol; k++)
            if (protocol[k] > element) element = protocol[k];
        int rc = tide_nodecoll_create(rt->coll_comm, element, &cs->node);
        if (rc != TIDE_OK) {
            tide_protocol_destroy(cs);
            return rc;
        }
    }
    cs->rt = rt;
    rt->log.node_coll = cs->node != NULL;
    MPI_Type_contiguous((int)TIDE_PHASE_SUMS_DOUBLES, MPI_DOUBLE, &cs->sums_type);
    MPI_Type_commit(&cs->sums_type);
    MPI_Op_create(sums_op_fn, 1, &cs->sums_op);
    tide_proto_init(&cs->proto, rt->size, rt->lb.ops->flags, rt->cfg.round_us, NULL, NULL);
    *out = cs;
    return TIDE_OK;
}

void tide_protocol_destroy(tide_protocol *cs)
{
    if (!cs) return;
    tide_nodecoll_destroy(cs->node);
    if (cs->rt) {
        MPI_Op_free(&cs->sums_op);
        MPI_Type_free(&cs->sums_type);
    }
    free(cs->all_status);
    free(cs->all);
    free(cs->held_mine);
    if (cs->fused_all != cs->fused_mine) free(cs->fused_all);
    free(cs->fused_mine);
    if (cs->inline_all != cs->inline_mine) free(cs->inline_all);
    free(cs->inline_mine);
    free(cs);
}
