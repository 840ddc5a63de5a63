/* The engine's bookkeeping, as runtime/engine (queue.c, task.c, commthread.c, replica.c) keeps
 * it: own tasks in a local queue (a list, so that a replica's result or a selected offload can
 * take one from the middle), received tasks in a remote queue, completions, results going
 * home, and speculative copies answered exactly once. Nothing here blocks: the actors
 * (actors.cpp, sender.cpp) do the waiting. */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

/* Wire sizes (docs/wire.md): a message header, and a control record. */
#define SIM_CONTROL_BYTES (SIM_HDR_BYTES + sizeof(tide_control))

sim_task *sim_task_of(sim_rank *R, int tid)
{
    return &sim_tab(R->S, R->phase)->tasks[(size_t)tid];
}

void sim_phase_tasks(sim *S, int phase)
{
    sim_table *tb = sim_tab(S, phase);
    if (tb->phase == phase && !tb->off.empty()) return;
    tb->phase = phase;
    tb->off.assign((size_t)S->P + 1, 0);
    for (int r = 0; r < S->P; r++)
        tb->off[(size_t)r + 1] = tb->off[(size_t)r] + S->wl->ntasks[(size_t)phase][(size_t)r];
    tb->tasks.assign((size_t)tb->off[(size_t)S->P], sim_task{});
    for (int r = 0; r < S->P; r++)
        for (long i = tb->off[(size_t)r]; i < tb->off[(size_t)r + 1]; i++) {
            sim_task *t = &tb->tasks[(size_t)i];
            t->origin = r;
            t->k = (int)(i - tb->off[(size_t)r]);
            t->dur =
                sim_task_dur(S->wl, phase, r, t->k) * noise_factor(&S->cfg->noise, phase, r, t->k);
            t->prev = t->next = t->holder = -1;
        }
}

void sim_rank_submit(sim_rank *R)
{
    sim_table *tb = sim_tab(R->S, R->phase);
    long first = tb->off[(size_t)R->id], end = tb->off[(size_t)R->id + 1];
    R->head = R->tail = -1;
    R->nlocal = 0;
    for (long i = first; i < end; i++) {
        sim_task *t = &tb->tasks[(size_t)i];
        t->state = T_QUEUED;
        t->prev = R->tail;
        if (R->tail >= 0)
            tb->tasks[(size_t)R->tail].next = (int)i;
        else
            R->head = (int)i;
        R->tail = (int)i;
        R->nlocal++;
    }
    R->phase_tasks = end - first;
    R->outstanding = R->phase_tasks;
}

void sim_local_unlink(sim_rank *R, int tid)
{
    sim_task *t = sim_task_of(R, tid);
    if (t->prev >= 0)
        sim_task_of(R, t->prev)->next = t->next;
    else
        R->head = t->next;
    if (t->next >= 0)
        sim_task_of(R, t->next)->prev = t->prev;
    else
        R->tail = t->prev;
    t->prev = t->next = -1;
    R->nlocal--;
    sim_view_changed(R);
}

static void sim_local_push_back(sim_rank *R, int tid)
{
    sim_task *t = sim_task_of(R, tid);
    t->state = T_QUEUED;
    t->prev = R->tail;
    t->next = -1;
    if (R->tail >= 0)
        sim_task_of(R, R->tail)->next = tid;
    else
        R->head = tid;
    R->tail = tid;
    R->nlocal++;
    sim_view_changed(R);
    R->work_cv->notify_one();
}

/* The own tasks chosen to move, until the transport (sender.cpp) sends them or the safety net
 * takes them back: queued here, so that the transport calls the engine and not the reverse. */
void sim_outgoing_push(sim_rank *R, int dest, int tid)
{
    sim_task_of(R, tid)->state = T_OUTGOING;
    R->outgoing[dest].push_back(tid);
    R->noutgoing++;
    if (R->lb.planning)
        tide_drain_waiting(&R->drain,
                           sg::Engine::get_clock()); /* as libtide: a plan's burst only */
    sim_view_changed(R);
}

/* The tasks the transport would send last, taken back first (tide_send_reclaim_prefers). */
int sim_reclaim(sim_rank *R, int n)
{
    int taken = 0;
    while (taken < n && R->noutgoing > 0) {
        auto from = R->outgoing.end();
        long most = 0;
        for (auto it = R->outgoing.begin(); it != R->outgoing.end(); ++it)
            if (tide_send_reclaim_prefers((long)it->second.size(), most))
                most = (long)it->second.size(), from = it;
        if (from == R->outgoing.end()) break;
        int tid = from->second.back();
        from->second.pop_back();
        if (from->second.empty()) R->outgoing.erase(from);
        R->noutgoing--;
        sim_local_push_back(R, tid);
        taken++;
    }
    if (taken) {
        R->n_reclaimed += taken;
        if (R->noutgoing == 0) tide_drain_flowing(&R->drain, sg::Engine::get_clock());
    }
    return taken;
}

int sim_local_pop_front(sim_rank *R)
{
    int tid = R->head;
    if (tid >= 0) sim_local_unlink(R, tid);
    return tid;
}

long sim_own_open(const sim_rank *R)
{
    return R->outstanding + R->replica_open;
}

static sim_msg *new_msg(sim_rank *R, int kind, int dest, double bytes)
{
    sim_msg *m = new sim_msg();
    m->kind = kind;
    m->src = R->id;
    m->dest = dest;
    m->phase = R->phase;
    m->bytes = bytes;
    return m;
}

/* A message that leaves at once, outside the in-flight bound: controls and replica copies. */
static void send_direct(sim_rank *R, sim_msg *m)
{
    R->controls.push_back(m);
    sim_wake_sender(R);
}

void sim_queue_control(sim_rank *R, int dest, const tide_control *msg)
{
    sim_msg *m = new_msg(R, M_CONTROL, dest, SIM_CONTROL_BYTES);
    m->ctl = *msg;
    send_direct(R, m);
}

/* ---- workers ----------------------------------------------------------------------------- */

static bool is_copy_here(const sim_rank *R, const sim_task *t)
{
    return t->replicated && t->holder == R->id && t->origin != R->id;
}

int sim_pick_task(sim_rank *R, bool *copy)
{
    if (!R->running) return -1;
    while (!R->remote.empty()) {
        int tid = R->remote.front();
        R->remote.pop_front();
        sim_task *t = sim_task_of(R, tid);
        *copy = is_copy_here(R, t);
        if (*copy && t->copy == C_CANCELLED) continue; /* counted out when cancelled */
        R->nremote--;
        sim_view_changed(R);
        if (*copy) t->copy = C_RUNNING; /* state stays the origin's (T_SENT) */
        return tid;
    }
    /* A strategy that plans at phase start holds the own tasks until it did, unless it plans
     * while they run (hold_own), as runtime/engine/worker.c's may_start_local. */
    if (!R->plan_ready && R->hold_own) return -1;
    int tid = sim_local_pop_front(R);
    if (tid < 0) return -1;
    sim_task *t = sim_task_of(R, tid);
    t->state = T_RUNNING;
    *copy = false;
    if (t->replicated) { /* a local start wins: the copy is cancelled */
        tide_control c = {OP_CANCEL, (uint32_t)R->phase, tid, 0};
        sim_queue_control(R, t->holder, &c);
    }
    return tid;
}

static void apply_own(sim_rank *R, sim_task *t)
{
    t->state = T_DONE;
    t->applied++;
    R->L += t->exec_time;
    if (t->exec_time > R->task_max) R->task_max = t->exec_time;
    if (--R->outstanding == 0) {
        sim_mark_active(R);
        sim_wake_comm(R);
    }
}

void sim_task_done(sim_rank *R, int tid, bool copy, double took, double end)
{
    sim_task *t = sim_task_of(R, tid);
    t->runs++;
    R->L_run += took;
    if (end > R->last_done) R->last_done = end;
    if (t->origin == R->id && !copy) {
        t->exec_time = took;
        apply_own(R, t);
        return;
    }
    if (copy)
        t->copy = C_DONE;
    else
        t->exec_time = took;
    if (took > R->task_max) R->task_max = took;
    R->n_received++;
    sim_msg *m = new_msg(R, M_RESULT, t->origin, SIM_HDR_BYTES + R->S->wl->result_bytes);
    m->tasks.push_back(tid);
    m->copy = copy;
    m->took = took; /* the measured time travels with the result */
    R->results.push_back(m);
    sim_mark_active(R); /* the worker wakes the comm thread to send the result */
    sim_wake_sender(R);
}

/* ---- receiving --------------------------------------------------------------------------- */

static void fatal(sim_rank *R, const char *what, int src)
{
    fprintf(stderr, "tide-sim: rank %d: %s from rank %d (phase %d)\n", R->id, what, src,
            R->phase + 1);
    exit(70);
}

static void on_tasks(sim_rank *R, sim_msg *m)
{
    if (!R->running || m->phase != R->phase) fatal(R, "tasks of another phase", m->src);
    for (int tid : m->tasks) {
        sim_task *t = sim_task_of(R, tid);
        if (t->origin != m->src) fatal(R, "a task of a third rank", m->src);
        if (m->copy) t->copy = C_QUEUED;
        R->remote.push_back(tid);
        R->nremote++;
        sim_view_changed(R);
    }
    for (size_t i = 0; i < m->tasks.size(); i++)
        R->work_cv->notify_one();
}

static void on_result(sim_rank *R, sim_msg *m)
{
    sim_task *t = sim_task_of(R, m->tasks[0]);
    if (t->origin != R->id) fatal(R, "the result of another rank's task", m->src);
    double took = m->took;
    if (!m->copy) {
        if (t->state != T_SENT) fatal(R, "a result no task awaits", m->src);
        t->exec_time = took;
        apply_own(R, t);
        return;
    }
    R->replica_open--;
    if (t->state == T_QUEUED) { /* the copy won: the original leaves the queue unrun */
        sim_local_unlink(R, m->tasks[0]);
        t->exec_time = took;
        R->n_offloaded++; /* it ran on another rank, as tide_replica_result counts it */
        apply_own(R, t);
    }
    sim_wake_comm(R);
}

/* Engine controls: a cancel of a copy (answered once: an acknowledgement, or the result of a
 * copy that had started), and the acknowledgement. */
static void on_engine_control(sim_rank *R, sim_msg *m)
{
    if (m->ctl.op == OP_CANCEL_ACK) {
        R->replica_open--;
        sim_wake_comm(R);
        return;
    }
    /* A cancel that crossed the copy's result may arrive after the phase: the copy ran. */
    if ((int)m->ctl.phase != R->phase) return;
    sim_task *t = sim_task_of(R, (int)m->ctl.value);
    if (t->copy != C_QUEUED) return; /* it runs or ran: its result answers */
    t->copy = C_CANCELLED;
    R->nremote--;
    sim_view_changed(R);
    R->n_cancelled++;
    tide_control ack = {OP_CANCEL_ACK, m->ctl.phase, m->ctl.value, 0};
    sim_queue_control(R, m->src, &ack);
}

bool sim_engine_receive(sim_rank *R, sim_msg *m)
{
    if (m->kind == M_TASKS)
        on_tasks(R, m);
    else if (m->kind == M_RESULT)
        on_result(R, m);
    else if (m->ctl.op >= TIDE_LB_OP_ENGINE)
        on_engine_control(R, m);
    else
        return false;
    return true;
}

/* ---- the strategy's actions -------------------------------------------------------------- */

int sim_offload(sim_rank *R, int dest, int n)
{
    if (dest == R->id || dest < 0 || dest >= R->S->P || n <= 0) return 0;
    int taken = 0;
    for (int tid = R->tail, prev; tid >= 0 && taken < n; tid = prev) {
        prev = sim_task_of(R, tid)->prev;
        if (sim_task_of(R, tid)->replicated) continue; /* a copy is out: it stays */
        sim_local_unlink(R, tid);
        sim_outgoing_push(R, dest, tid);
        taken++;
    }
    if (taken) sim_wake_sender(R);
    return taken;
}

int sim_offload_selected(sim_rank *R, const int32_t *dest, long n)
{
    int moved = 0; /* dest names tasks by position (k): those that started are not queued */
    for (int tid = R->head, next; tid >= 0; tid = next) {
        next = sim_task_of(R, tid)->next;
        long k = sim_task_of(R, tid)->k;
        if (k < 0 || k >= n) continue;
        int d = dest[k];
        if (d == R->id || d < 0 || d >= R->S->P || sim_task_of(R, tid)->replicated) continue;
        sim_local_unlink(R, tid);
        sim_outgoing_push(R, d, tid);
        moved++;
    }
    if (moved) sim_wake_sender(R);
    return moved;
}

int sim_replicate(sim_rank *R, int dest, int n)
{
    if (dest == R->id || dest < 0 || dest >= R->S->P || n <= 0) return 0;
    int done = 0;
    for (int tid = R->tail; tid >= 0 && done < n; tid = sim_task_of(R, tid)->prev) {
        sim_task *t = sim_task_of(R, tid);
        if (t->replicated) continue;
        t->replicated = true;
        t->holder = dest;
        sim_msg *m = new_msg(R, M_TASKS, dest, SIM_HDR_BYTES + R->S->wl->task_bytes);
        m->tasks.push_back(tid);
        m->copy = true;
        send_direct(R, m);
        R->replica_open++;
        done++;
    }
    return done;
}

/* ---- exactly once ------------------------------------------------------------------------ */

static void violation(sim_rank *R, const sim_task *t, const char *what)
{
    sim *S = R->S;
    if (S->violations++ == 0)
        snprintf(S->violation, sizeof S->violation,
                 "phase %d: task %d of rank %d %s (ran %d times, applied %d times)", R->phase + 1,
                 t->k, t->origin, what, t->runs, t->applied);
}

void sim_rank_check(sim_rank *R)
{
    sim_table *tb = sim_tab(R->S, R->phase);
    for (long i = tb->off[(size_t)R->id]; i < tb->off[(size_t)R->id + 1]; i++) {
        const sim_task *t = &tb->tasks[(size_t)i];
        int max_runs = t->replicated ? 2 : 1;
        if (t->applied != 1)
            violation(R, t, "did not complete exactly once");
        else if (t->runs < 1 || t->runs > max_runs)
            violation(R, t, "ran more often than allowed");
        else if (t->state != T_DONE)
            violation(R, t, "is not done at the phase end");
        else if (t->replicated && (t->copy == C_QUEUED || t->copy == C_RUNNING))
            violation(R, t, "left its copy behind");
    }
}
