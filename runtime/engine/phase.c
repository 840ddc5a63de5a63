/* The phase protocol (termination): a state machine the comm thread advances one step per
 * loop turn. Every collective runs on coll_comm, issued in the same order on every rank:
 *   [start sync: status allgather, for strategies that move tasks]
 *   run: until every own task of the phase has completed (locally or with its result home)
 *   end: status allgathers every TIDE_ROUND_US until one shows no outstanding work anywhere
 *        (strategies with rounds), or one status allgather that each rank joins once its own
 *        tasks are complete (without): then no task of the phase is running or travelling
 *   iallgather of the per-rank phase records (statistics), then the workers are released.
 * tide_finalize ends with one more status allgather, marked finalizing.
 *
 * Under a strategy that never acts (rt->inline_phases) no task moves, so the comm thread has no
 * part in a phase: the application thread runs it in tide_taskwait, as the last step one
 * allgather of every rank's step (phase, finalizing) and record together (its tasks are complete
 * when it joins, which is the end allgather's rule), and the statistics. An empty phase then
 * costs one collective instead of four thread hand-offs and two collectives. Its allgathers, the
 * closing one of tide_finalize included, carry step and record on every rank, so a mismatched
 * rank still meets the others in a collective of the same shape. The rest of a status serves
 * only strategies that act; without it the message stays under the size at which Open MPI's
 * shared-memory allgather gets slower (44 doubles: 1.3 us against 0.9 us for 30 on 2 ranks).
 *
 * Every status record carries its rank's phase number and whether it is finalizing, and the
 * first collective a rank joins in a phase, or in tide_finalize, is always a status allgather.
 * So a rank that called tide_taskwait more or fewer times than the others meets them in a
 * collective of the same shape (not in one that MPI would truncate or never match), every rank
 * sees the mismatch in the same records, and the job ends with one line naming it. */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { PH_IDLE, PH_START_SYNC, PH_RUN, PH_ROUND, PH_END, PH_GATHER } phase_state;

enum { FUSED_STEP = 2, FUSED_DOUBLES = FUSED_STEP + TIDE_RECORD_DOUBLES };

struct tide_protocol {
    tide_rt *rt;
    phase_state state;
    MPI_Request coll_req;
    tide_rank_status my_status, *all_status;
    double next_round; /* tide_now() at which the next status round starts */
    tide_rank_record mine, *all;
    int nphases;       /* phases completed by the comm thread */
    bool final_posted; /* the closing allgather of tide_finalize */
    bool final_checked;
    MPI_Request final_req;
    /* rt->inline_phases: phase, finalizing, then the record; this rank's and every rank's */
    double fused_mine[FUSED_DOUBLES], *fused_all;
};

static void fill_record(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    tide_rank_record *r = &cs->mine;
    memset(r, 0, sizeof *r);
    double last = 0;
    r->task_max = rt->offload_task_max;
    r->L = rt->L_offloaded;
    for (int i = 0; i < rt->threads; i++) {
        tide_worker_slot *s = &rt->slots[i];
        r->L += s->L_local;
        r->L_run += s->L_run;
        if (s->executed && s->last_done > last) last = s->last_done;
        if (s->task_max > r->task_max) r->task_max = s->task_max;
    }
    r->W = last > 0 ? last - rt->phase_start : 0;
    r->L_pred = rt->feed.load;
    r->L_unc = rt->feed.unc;
    r->pred_source = rt->feed.source;
    r->pred_model = rt->feed.model_code;
    r->plan_residual = rt->plan_residual;
    r->plan_limit = rt->plan_limit;
    r->time = tide_now() - rt->phase_start;
    r->tasks = (double)rt->phase_tasks;
    r->offloaded = (double)rt->n_offloaded;
    r->received = (double)(rt->n_received - rt->n_cancelled);
    r->cancelled = (double)rt->n_cancelled;
    r->bytes_sent = (double)rt->bytes_sent;
    tide_transport_phase_end(rt, &r->send_bw, &r->sent_last);
    r->plan_transfer = rt->plan_transfer;
    r->reclaimed = (double)rt->n_reclaimed;
    r->replicated = (double)rt->n_replicated;
}

static bool test_coll(tide_protocol *cs)
{
    int flag = 0;
    MPI_Test(&cs->coll_req, &flag, MPI_STATUS_IGNORE);
    return flag;
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

/* start: the phase-start allgather, whose plan needs what moving costs. */
static void allgather_status(tide_protocol *cs, bool start)
{
    tide_rt *rt = cs->rt;
    tide_rank_status *st = &cs->my_status;
    st->ntasks = (double)rt->phase_tasks;
    st->L_pred = rt->feed.load;
    st->queued = (double)atomic_load(&rt->local.count);
    st->queued_in = (double)atomic_load(&rt->remote.count);
    st->outstanding = (double)own_open(rt);
    st->task_pred = tide_predict_task_ready(rt);
    st->L_unc = rt->feed.unc;
    st->threads = rt->threads;
    st->task_bytes = start ? mean_task_bytes(rt) : 0;
    st->send_bw = tide_transport_send_bw(rt);
    st->phase = cs->nphases + 1;
    st->finalizing = 0;
    MPI_Iallgather(st, TIDE_STATUS_DOUBLES, MPI_DOUBLE, cs->all_status, TIDE_STATUS_DOUBLES,
                   MPI_DOUBLE, rt->coll_comm, &cs->coll_req);
}

/* ---- phase agreement ------------------------------------------------------------------------- */

static bool same_step(const tide_rank_status *a, const tide_rank_status *b)
{
    return a->phase == b->phase && a->finalizing == b->finalizing;
}

static void describe_step(const tide_rank_status *s, char *out, size_t len)
{
    if (s->finalizing)
        snprintf(out, len, "in tide_finalize after %.0f phases", s->phase);
    else
        snprintf(out, len, "in phase %.0f", s->phase);
}

static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len += w > 0 ? (size_t)w : 0;
}

/* Every rank finds the same mismatch in the same records; rank 0 says it, in one line, and ends
 * the job. "The others" are the ranks at the most common step (ties: the lowest rank's). */
static _Noreturn void phase_mismatch(tide_protocol *cs)
{
    const tide_rank_status *all = cs->all_status;
    int n = cs->rt->size, ref = 0, nref = 0, listed = 0;
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (int j = 0; j < n; j++)
            same += same_step(&all[i], &all[j]);
        if (same > nref) nref = same, ref = i;
    }
    char msg[512] = "", step[64];
    size_t len = 0;
    for (int i = 0; i < n && listed < 4; i++) {
        if (same_step(&all[i], &all[ref])) continue;
        describe_step(&all[i], step, sizeof step);
        append(msg, sizeof msg, &len, "%srank %d is %s", listed++ ? ", " : "", i, step);
    }
    if (n - nref > listed) append(msg, sizeof msg, &len, ", and %d more ranks", n - nref - listed);
    describe_step(&all[ref], step, sizeof step);
    if (nref > 1)
        append(msg, sizeof msg, &len, ", the others %s", step);
    else
        append(msg, sizeof msg, &len, ", rank %d %s", ref, step);
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

/* After each status allgather: every rank must be at the same step. */
static void check_phases(tide_protocol *cs)
{
    for (int i = 1; i < cs->rt->size; i++)
        if (!same_step(&cs->all_status[i], &cs->all_status[0])) phase_mismatch(cs);
}

static void run_begin(tide_protocol *cs, const tide_rank_status *all)
{
    tide_rt *rt = cs->rt;
    cs->state = PH_RUN;
    tide_lb_phase_begin(rt, all);
    atomic_store_explicit(&rt->plan_ready, cs->nphases + 1, memory_order_release);
    /* Only workers held back for the plan need waking (tasks arriving wake them themselves);
     * a needless broadcast costs more than an empty phase's whole protocol. */
    if (tide_lb_phase_sync(rt) && atomic_load(&rt->local.count) > 0) tide_workers_wake(rt);
    cs->next_round = tide_now() + 1e-6 * rt->cfg.round_us;
}

static void gather_records(tide_protocol *cs)
{
    fill_record(cs);
    MPI_Iallgather(&cs->mine, TIDE_RECORD_DOUBLES, MPI_DOUBLE, cs->all, TIDE_RECORD_DOUBLES,
                   MPI_DOUBLE, cs->rt->coll_comm, &cs->coll_req);
    cs->state = PH_GATHER;
}

/* The phase's records are every rank's: the statistics take them, and the phase is over. */
static void phase_record(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (tide_stats_add_phase(&rt->log, cs->all) != TIDE_OK)
        tide_fatal("out of memory recording phase statistics");
    tide_stats_compute(&rt->log, rt->log.nphases - 1, rt->threads, rt->rank, &rt->last);
    tide_predict_phase_ended();
    rt->running = false;
    cs->nphases++;
    atomic_store_explicit(&rt->phase_done, cs->nphases, memory_order_release);
}

static void phase_finish(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    phase_record(cs);
    cs->state = PH_IDLE;
    tide_workers_wake(rt);
    /* The application runs again: the model learns (and may retrain) meanwhile. */
    tide_predict_observe(rt, cs->all[rt->rank].L);
}

static bool all_done(const tide_protocol *cs)
{
    for (int i = 0; i < cs->rt->size; i++)
        if (cs->all_status[i].outstanding != 0) return false;
    return true;
}

/* A phase starts: counters to zero, the prediction it is judged by. */
static void phase_open(tide_protocol *cs)
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
    rt->cphase = cs->nphases;
    rt->running = true;
}

/* An inline allgather, the phase's or tide_finalize's: this rank's step (my_status) and the record
 * already in fused_mine out, every rank's into fused_all; their steps into all_status, checked. */
static void fused_allgather(tide_protocol *cs)
{
    cs->fused_mine[0] = cs->my_status.phase;
    cs->fused_mine[1] = cs->my_status.finalizing;
    MPI_Allgather(cs->fused_mine, FUSED_DOUBLES, MPI_DOUBLE, cs->fused_all, FUSED_DOUBLES,
                  MPI_DOUBLE, cs->rt->coll_comm);
    for (int i = 0; i < cs->rt->size; i++) {
        const double *f = cs->fused_all + (size_t)i * FUSED_DOUBLES;
        cs->all_status[i] = (tide_rank_status){.phase = f[0], .finalizing = f[1]};
    }
    check_phases(cs);
}

/* cs->state stays PH_IDLE: the comm thread reads it (tide_protocol_idle), and for the comm
 * thread no phase runs. */
void tide_protocol_inline_begin(tide_protocol *cs)
{
    phase_open(cs);
}

void tide_protocol_inline_end(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (own_open(rt) != 0) tide_fatal("an inline phase ends with %ld own tasks open", own_open(rt));
    cs->my_status = (tide_rank_status){.phase = cs->nphases + 1};
    fill_record(cs);
    memcpy(cs->fused_mine + FUSED_STEP, &cs->mine, sizeof cs->mine);
    fused_allgather(cs);
    for (int i = 0; i < rt->size; i++)
        memcpy(&cs->all[i], cs->fused_all + (size_t)i * FUSED_DOUBLES + FUSED_STEP,
               sizeof cs->all[i]);
    phase_record(cs);
    tide_predict_observe(rt, cs->all[rt->rank].L);
}

bool tide_protocol_step(tide_protocol *cs)
{
    tide_rt *rt = cs->rt;
    if (rt->inline_phases) return false; /* the application thread runs each phase */
    /* Not while records are gathered: every rank's work is done, and a steal request sent then
     * could still be in flight when its target leaves tide_finalize. */
    if (rt->running && cs->state != PH_START_SYNC && cs->state != PH_GATHER) tide_lb_progress(rt);
    switch (cs->state) {
    case PH_IDLE:
        if (atomic_load_explicit(&rt->phase_requested, memory_order_acquire) <= cs->nphases)
            return false;
        phase_open(cs);
        if (tide_lb_phase_sync(rt)) {
            allgather_status(cs, true);
            cs->state = PH_START_SYNC;
        } else {
            run_begin(cs, NULL);
        }
        return true;
    case PH_START_SYNC:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        run_begin(cs, cs->all_status);
        return true;
    case PH_RUN: {
        bool mine_done = own_open(rt) == 0;
        if (!tide_lb_rounds(rt)) {
            if (!mine_done) return false;
            allgather_status(cs, false);
            cs->state = PH_END;
            return true;
        }
        /* A rank whose own tasks are done joins the next round at once: when it is the last,
         * that round ends the phase without waiting for the interval. */
        if (!mine_done && tide_now() < cs->next_round) return false;
        allgather_status(cs, false);
        cs->state = PH_ROUND;
        return true;
    }
    case PH_ROUND:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        if (all_done(cs)) { /* every rank saw the same round: all leave together */
            gather_records(cs);
            return true;
        }
        tide_lb_round(rt, cs->all_status);
        cs->state = PH_RUN;
        cs->next_round = tide_now() + 1e-6 * rt->cfg.round_us;
        return true;
    case PH_END:
        if (!test_coll(cs)) return false;
        check_phases(cs);
        gather_records(cs);
        return true;
    case PH_GATHER:
        if (!test_coll(cs)) return false;
        phase_finish(cs);
        return true;
    }
    return false;
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
        cs->my_status = (tide_rank_status){.phase = cs->nphases, .finalizing = 1};
        if (rt->inline_phases) {
            /* The shape of an inline phase's allgather (record zero), and blocking as that one
             * is: MPI matches no blocking collective with a nonblocking one. Nothing can arrive
             * meanwhile: under a strategy that never acts no rank sends a message. */
            memset(cs->fused_mine, 0, sizeof cs->fused_mine);
            fused_allgather(cs);
            cs->final_posted = cs->final_checked = true;
            cs->final_req = MPI_REQUEST_NULL; /* what the next call tests */
            return tide_transport_idle(rt);
        }
        MPI_Iallgather(&cs->my_status, TIDE_STATUS_DOUBLES, MPI_DOUBLE, cs->all_status,
                       TIDE_STATUS_DOUBLES, MPI_DOUBLE, rt->coll_comm, &cs->final_req);
        cs->final_posted = true;
        return false;
    }
    int flag = 0;
    MPI_Test(&cs->final_req, &flag, MPI_STATUS_IGNORE);
    if (flag && !cs->final_checked) {
        check_phases(cs);
        cs->final_checked = true;
    }
    return flag && tide_transport_idle(rt);
}

bool tide_protocol_idle(const tide_protocol *cs)
{
    return cs->state == PH_IDLE;
}

tide_protocol *tide_protocol_create(tide_rt *rt)
{
    tide_protocol *cs = calloc(1, sizeof *cs);
    if (cs) {
        cs->all_status = calloc((size_t)rt->size, sizeof *cs->all_status);
        cs->all = calloc((size_t)rt->size, sizeof *cs->all);
        cs->fused_all = calloc((size_t)rt->size * FUSED_DOUBLES, sizeof(double));
    }
    if (!cs || !cs->all_status || !cs->all || !cs->fused_all) {
        tide_protocol_destroy(cs);
        return NULL;
    }
    cs->rt = rt;
    cs->state = PH_IDLE;
    return cs;
}

void tide_protocol_destroy(tide_protocol *cs)
{
    if (!cs) return;
    free(cs->all_status);
    free(cs->all);
    free(cs->fused_all);
    free(cs);
}
