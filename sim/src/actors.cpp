/* The actors of one rank: workers, the receiver, and the comm actor, which drives the engine
 * core's phase protocol (runtime/core: tide_core_proto.h, the state machine libtide's comm thread
 * steps in runtime/engine/phase.c): it asks the core what to do next, does it with SimGrid (the
 * collective model, the strategy's calls, the records), and waits for what the core names, with
 * the idle turns at which nothing can happen skipped (wait_turn). libtide's inline phases and
 * tide_finalize's closing allgather are not modelled: tide-sim runs every phase through the comm
 * thread's protocol, and its ranks all run the workload's phases (no mismatch to find). */
#include "sim.h"

#include <algorithm>
#include <cstdlib>
#include <cmath>

static double now()
{
    return sg::Engine::get_clock();
}

void sim_worker_actor(sim_rank *R)
{
    sg::Actor::self()->daemonize();
    double speed = R->host->get_speed();
    for (;;) {
        bool copy = false;
        int tid;
        R->mu->lock();
        while ((tid = sim_pick_task(R, &copy)) < 0)
            R->work_cv->wait(R->mu);
        R->mu->unlock();
        double secs = sim_task_of(R, tid)->dur * sim_slowdown(R->S, R->id, R->phase);
        double start = now();
        bool sleeps = secs > 0 && R->S->exec_sleeps;
        if (sleeps)
            sg::this_actor::sleep_for(secs);
        else if (secs > 0)
            sg::this_actor::execute(secs * speed);
        double end = now();
        /* A sleep takes its duration exactly (the clock's end - start can differ in the last
         * bits; a replay must see the recorded loads, docs/sim.md "Equivalence"). */
        sim_task_done(R, tid, copy, sleeps ? secs : end - start, end);
    }
}

/* A message the receiver took: its channel is free again (sender.cpp); the engine's own kinds
 * go to the engine, the strategy's controls to the strategy, whose progress then gets a turn. */
static void receive(sim_rank *R, sim_msg *m)
{
    if (m->channel) sim_channel_free(&R->S->ranks[(size_t)m->src], m);
    if (sim_engine_receive(R, m)) return;
    tide_host_control(&R->lb, m->src, &m->ctl);
    if (R->S->ops->progress) sim_wake_comm(R);
}

void sim_receiver_actor(sim_rank *R)
{
    sg::Actor::self()->daemonize();
    for (;;) {
        sim_msg *m = R->S->cfg->net != SIM_NET_EXACT ? sim_net_take(R) : R->mbox->get<sim_msg>();
        double arrived = now(), turn;
        R->rx_waiting = true;
        std::unique_lock<sg::Mutex> lk(*R->mu);
        while (now() < (turn = sim_next_poll(R, arrived)))
            R->poll_cv->wait_until(lk, turn);
        lk.unlock();
        R->rx_waiting = false;
        receive(R, m);
        sim_mark_active(R);
        delete m;
    }
}

/* This rank's status for the allgather the core asked to post (tide_proto_status). */
static void post_status(sim_rank *R)
{
    tide_proto_numbers n = {};
    n.ntasks = (double)R->phase_tasks;
    n.L_pred = R->feed.load;
    n.queued = (double)R->nlocal;
    n.queued_in = (double)R->nremote;
    n.outstanding = (double)sim_own_open(R);
    n.task_pred = R->feed.per_task ? 1 : 0;
    n.L_unc = R->feed.unc;
    n.L_suspect = R->feed.suspect;
    n.threads = R->S->W;
    n.task_bytes = R->S->wl->task_bytes; /* every task's */
    n.send_bw = sim_send_bw(R);
    n.plan_moving = tide_drain_busy(&R->drain) ? 1 : 0;
    n.plan_at = R->plan_at;
    R->status_seq = R->coll_seq;
    sim_coll_post(R, (const double *)tide_proto_status(&R->proto, &n), (int)TIDE_STATUS_DOUBLES,
                  nullptr);
}

/* What tide_taskwait does before the comm thread sees the phase: its tasks, submitted. */
static void phase_submit(sim_rank *R, int p)
{
    sim_phase_tasks(R->S, p);
    R->phase = p;
    R->L = R->L_run = R->task_max = R->bytes_sent = 0;
    R->n_offloaded = R->n_received = R->n_cancelled = R->n_reclaimed = 0;
    R->plan_transfer = -1;
    R->last_done = 0;
    R->phase_start = now();
    sim_mark_active(R); /* tide_taskwait wakes the comm thread */
    sim_rank_submit(R);
    R->hold_own =
        !R->gate.idle_next && tide_proto_hold_own(R->S->ops->flags, (double)R->phase_tasks, R->S->W,
                                                  R->plan_at, R->last_phase_s);
}

/* What the comm loop waits for besides events (tide_proto_wait_for): the collective it posted,
 * or its round's turn (next; INFINITY: none). */
typedef tide_proto_wait loop_wait;

static double loop_deadline(const sim_rank *R, const loop_wait *lw)
{
    if (lw->posted) return sim_coll_deadline(R);
    return std::isfinite(lw->next) ? sim_next_poll(R, lw->next) : INFINITY;
}

/* The idle comm loop's wait for its next turn (or an event), with the turns at which nothing
 * can happen skipped: the loop's turns are at t + b, b doubling up to the cap, or at its
 * deadline; at a turn before the strategy's quiet_until progress does nothing, and before the
 * deadline the loop does nothing either. Both are judged with the view as it is: a change of
 * the view (a queue, the last productive turn) wakes the wait, the turns before the change
 * stand, and the ones from it on are judged afresh. *backoff ends as the back-off of the turn
 * returned at, as if every turn had run. True on an event. */
static bool wait_turn(sim_rank *R, const loop_wait *lw, tide_backoff *backoff)
{
    tide_backoff b = *backoff;
    double t = now(), deadline = loop_deadline(R, lw), w = std::min(deadline, t + 1e-6 * b.sleep);
    if (R->S->cfg->idle_turns != SIM_IDLE_SKIP || !R->S->ops->quiet_until || !R->running)
        return sim_wait_event(R, w);
    long skipped;
    auto pass = [&]() { /* the turn at w runs idle: on to the next one */
                        t = w;
                        tide_backoff_idle(&b);
                        w = std::min(deadline, t + 1e-6 * b.sleep);
                        skipped++;
    };
    std::unique_lock<sg::Mutex> lk(*R->mu);
    for (;;) {
        double quiet = tide_host_quiet_until(&R->lb), t0 = t, w0 = w;
        tide_backoff b0 = b;
        skipped = 0;
        deadline = loop_deadline(R, lw);
        while (w < quiet && w < deadline) {
            pass();
            if (quiet == INFINITY && deadline == INFINITY) w = INFINITY; /* only a change */
        }
        R->quiet_wait = true;
        R->view_changed = false;
        while (!R->comm_event && !R->view_changed && now() < w) {
            if (std::isfinite(w))
                R->comm_cv->wait_until(lk, w);
            else
                R->comm_cv->wait(lk);
        }
        R->quiet_wait = false;
        bool reached = now() >= w;
        if (!reached) { /* an event, or the view changed: the turns before now were idle */
            t = t0;
            b = b0;
            w = w0;
            skipped = 0;
            while (w < now())
                pass();
        }
        R->S->turns_skipped += skipped;
        if (R->comm_event || reached) break;
    }
    *backoff = b;
    bool ev = R->comm_event;
    R->comm_event = false;
    return ev;
}

/* The back-off of a strategy's progress polling: the engine core's sleeps (1 us doubling up to
 * TIDE_POLL_SLEEP_MAX_US), without its spin turns (one turn here stands for the spin). */
static tide_backoff progress_backoff(const sim_rank *R)
{
    tide_backoff b;
    tide_backoff_init(&b, 0, R->S->cfg->tide.poll_sleep_max_us);
    return b;
}

/* The comm loop's waiting: until an event or the deadline; a strategy with a progress callback
 * is called at each wake, polled with the runtime's back-off while nothing happens. */
static void idle(sim_rank *R, const loop_wait *lw, tide_backoff *backoff)
{
    bool ev =
        R->S->ops->progress ? wait_turn(R, lw, backoff) : sim_wait_event(R, loop_deadline(R, lw));
    if (ev)
        tide_backoff_busy(backoff);
    else
        tide_backoff_idle(backoff);
    if (R->S->ops->progress && R->running) tide_host_progress(&R->lb);
}

/* The first turn of the comm thread at or after t, on the poll back-off's grid: when a round due
 * at t is seen (tide_proto_init's turn). */
static double round_turn(void *R, double t)
{
    return sim_next_poll((const sim_rank *)R, t);
}

/* The numbers of the plan gate a rank adds to the phase-end allreduce (libtide: its
 * tide_phase_sums), now: its time until its record, how long its last phase of this kind went on
 * after the last rank's record (gate_tail), own load per worker, whether it had a prediction,
 * its own load in whole nanoseconds, its workers, how long its workers had work (W). */
enum {
    GATE_TIME,
    GATE_TAIL,
    GATE_OWN,
    GATE_PREDICTED,
    GATE_L_NS,
    GATE_WORKERS,
    GATE_BUSY,
    GATE_DOUBLES
};

static void post_sums(sim_rank *R, bool idle)
{
    double mine[GATE_DOUBLES] = {now() - R->phase_start, tide_plan_gate_tail(&R->gate, idle),
                                 R->L / R->S->W, R->feed.load >= 0 ? 1.0 : 0.0,
                                 std::round(R->L * 1e9), (double)R->S->W,
                                 R->last_done > 0 ? R->last_done - R->phase_start : 0};
    sim_coll_post_reduce(R, mine, GATE_DOUBLES, TIDE_PROTO_SUMS_DOUBLES);
}

/* Every rank's numbers folded as libtide's allreduce does (maxima, exact sums): the plan gate. */
static void gate_phase(sim_rank *R, const double *all, bool idle)
{
    tide_gate_phase ph = {};
    double predicted = 0, L_ns = 0, workers = 0;
    ph.idle = idle;
    for (int i = 0; i < R->S->P; i++) {
        const double *v = all + (size_t)i * GATE_DOUBLES;
        ph.time = std::max(ph.time, v[GATE_TIME]);
        ph.tail = std::max(ph.tail, v[GATE_TAIL]);
        ph.own = std::max(ph.own, v[GATE_OWN]);
        ph.busy = std::max(ph.busy, v[GATE_BUSY]);
        predicted += v[GATE_PREDICTED];
        L_ns += v[GATE_L_NS];
        workers += v[GATE_WORKERS];
    }
    ph.predicted = predicted == R->S->P;
    ph.mean = workers > 0 ? 1e-9 * L_ns / workers : 0;
    tide_plan_gate_end(&R->gate, &ph);
}

/* libtide's inline phase (phase.c, tide_protocol_inline_end), under a strategy that never acts
 * or one the plan gate holds idle: the application thread waits for its tasks, then joins one
 * blocking allreduce of the phase's sums and steps (TIDE_PROTO_SUMS_DOUBLES); no start sync, no
 * end status, no comm thread. */
static void run_inline_phase(sim_rank *R, sim_record *rec)
{
    sim_predict_phase(R);
    R->running = true;
    R->work_cv->notify_all();
    while (sim_own_open(R) > 0)
        sim_wait_event(R, INFINITY);
    sim_record_fill(R, rec);
    rec->protocol = false;
    post_sums(R, true);
    const double *all = sim_coll_block(R);
    R->proto.nphases++; /* as libtide: the phase ran outside the core's state machine */
    if (R->gate.on) gate_phase(R, all, true);
}

/* The comm thread's side of one phase, as the core decides it (tide_core_proto.h): steps until
 * there is nothing to do, then waits for what the core names. The start sync and the records
 * allgather block (no progress meanwhile); a round's or the end's allgather is waited for with
 * the strategy's progress running. */
static void run_phase(sim_rank *R, int p)
{
    tide_proto *pr = &R->proto;
    tide_backoff backoff = progress_backoff(R);
    sim_record rec;
    for (;;) {
        if (R->S->inline_phases || R->gate.idle_next) {
            run_inline_phase(R, &rec);
            break;
        }
        unsigned need = tide_proto_needs(pr);
        tide_proto_input in = {};
        in.requested = p + 1;
        if (need & TIDE_PROTO_NEED_COLL) {
            if (!tide_proto_progress(pr)) {
                in.all = (const tide_rank_status *)sim_coll_wait(R);
                in.coll_done = true;
            } else if (sim_coll_done(R)) {
                R->coll_waiting = false;
                in.all = (const tide_rank_status *)sim_coll_take(R);
                in.coll_done = true;
            }
        }
        in.own_open = sim_own_open(R);
        in.now = now();
        tide_proto_action a = tide_proto_step(pr, &in);
        if (!a.what) {
            loop_wait lw = tide_proto_wait_for(pr);
            idle(R, &lw, &backoff);
            continue;
        }
        if (a.what & TIDE_PROTO_DO_MISMATCH) {
            char line[512];
            tide_proto_mismatch_line(a.all, R->S->P, line, sizeof line);
            fprintf(stderr, "tide-sim: phase mismatch: %s\n", line);
            exit(1);
        }
        if (a.what & TIDE_PROTO_DO_OPEN) {
            sim_predict_phase(R);
            R->running = true;
            if (!R->hold_own) R->work_cv->notify_all();
        }
        if (a.what & TIDE_PROTO_DO_BEGIN) {
            sim_lb_phase_begin(R, a.all);
            R->plan_at = now() - R->phase_start;
            R->plan_ready = true;
            R->work_cv->notify_all();
            backoff = progress_backoff(R);
        }
        if (a.what & TIDE_PROTO_DO_ROUND) sim_lb_round(R, a.all);
        if (a.what & (TIDE_PROTO_DO_BEGIN | TIDE_PROTO_DO_ROUND))
            tide_proto_round_next(pr, now(), tide_host_rounds_needed(&R->lb));
        if (a.what & TIDE_PROTO_DO_POST_START) post_status(R);
        if (a.what & TIDE_PROTO_DO_POST_BARRIER) { /* an allreduce of nothing: log2 P latencies */
            sim_coll_post_reduce(R, nullptr, 0, 0);
            R->coll_waiting = true;
        }
        if (a.what & TIDE_PROTO_DO_POST_STATUS) {
            post_status(R);
            R->coll_waiting = true;
        }
        if (a.what & TIDE_PROTO_DO_POST_RECORDS) {
            sim_record_fill(R, &rec);
            post_sums(R, false);
        }
        if (a.what & TIDE_PROTO_DO_FINISH) {
            if (R->gate.on) gate_phase(R, (const double *)in.all, false);
            break;
        }
    }
    /* The records are every rank's: statistics, the exactly-once check, and the load model
     * learns the phase. */
    rec.time = now() - R->phase_start;
    R->last_phase_s = rec.time;
    tide_plan_gate_ended(&R->gate, !rec.protocol, rec.time);
    R->S->log[(size_t)R->phase][(size_t)R->id] = rec;
    R->running = false;
    R->plan_ready = false;
    sim_rank_check(R);
    sim_predict_observe(R);
}

void sim_comm_actor(sim_rank *R)
{
    tide_proto_init(&R->proto, R->S->P, R->S->ops->flags, R->S->cfg->tide.round_us, round_turn, R);
    const tide_config *c = &R->S->cfg->tide;
    tide_plan_gate_setup(&R->gate, R->S->ops->flags, c->phase_driver, c->plan_gate, R->S->P);
    for (int p = 0; p < R->S->wl->phases; p++) {
        phase_submit(R, p);
        run_phase(R, p);
    }
}
