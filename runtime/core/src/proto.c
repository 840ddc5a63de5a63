/* The phase protocol's decisions (tide_core_proto.h): the state machine libtide's comm thread
 * (runtime/engine/phase.c) and tide-sim's comm actor (sim/src/actors.cpp) both step. */
#include "tide_core_proto.h"
#include "tide_core_config.h"
#include "tide_core_host.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tide_proto_init(tide_proto *p, int size, unsigned lb_flags, double round_us,
                     tide_proto_turn_fn turn, void *turn_ctx)
{
    memset(p, 0, sizeof *p);
    p->state = TIDE_PROTO_IDLE;
    p->size = size;
    p->sync = (lb_flags & TIDE_LB_PHASE_SYNC) != 0;
    p->rounds = (lb_flags & TIDE_LB_ROUNDS) != 0;
    p->agreed = p->sync && p->rounds && (lb_flags & TIDE_LB_ROUNDS_AGREED);
    p->round_s = 1e-6 * round_us;
    p->turn = turn;
    p->turn_ctx = turn_ctx;
    p->next_round = INFINITY;
}

const tide_rank_status *tide_proto_status(tide_proto *p, const tide_proto_numbers *n)
{
    /* The start status (the one posted from IDLE) carries what moving a task costs. */
    bool start = p->state == TIDE_PROTO_START_SYNC;
    p->mine = (tide_rank_status){
        .ntasks = n->ntasks,
        .L_pred = n->L_pred,
        .queued = n->queued,
        .queued_in = n->queued_in,
        .outstanding = n->outstanding,
        .task_pred = n->task_pred,
        .L_unc = n->L_unc,
        .L_suspect = n->L_suspect,
        .threads = n->threads,
        .task_bytes = start && n->queued > 0 ? n->task_bytes : 0,
        .send_bw = n->send_bw,
        .plan_moving = n->plan_moving,
        .plan_at = n->plan_at,
        .phase = p->nphases + 1,
    };
    return &p->mine;
}

static bool all_done(const tide_rank_status *all, int n)
{
    for (int i = 0; i < n; i++)
        if (all[i].outstanding != 0) return false;
    return true;
}

static tide_proto_action act(unsigned what, const tide_rank_status *all)
{
    return (tide_proto_action){what, all};
}

/* A status set arrived: every rank must be at the same step. */
static bool agreed(const tide_proto *p, const tide_proto_input *in)
{
    return tide_proto_steps_agree(in->all, p->size);
}

tide_proto_action tide_proto_step(tide_proto *p, const tide_proto_input *in)
{
    switch (p->state) {
    case TIDE_PROTO_IDLE:
        if (in->requested <= p->nphases) return act(0, NULL);
        p->rounded = false;
        if (p->sync) {
            p->state = TIDE_PROTO_START_SYNC;
            return act(TIDE_PROTO_DO_OPEN | TIDE_PROTO_DO_POST_START, NULL);
        }
        p->state = TIDE_PROTO_RUN;
        return act(TIDE_PROTO_DO_OPEN | TIDE_PROTO_DO_BEGIN, NULL);
    case TIDE_PROTO_START_SYNC:
        if (!in->coll_done) return act(0, NULL);
        if (!agreed(p, in)) return act(TIDE_PROTO_DO_MISMATCH, in->all);
        p->state = TIDE_PROTO_RUN;
        return act(TIDE_PROTO_DO_BEGIN, in->all);
    case TIDE_PROTO_RUN:
        if (!p->rounds) {
            if (in->own_open != 0) return act(0, NULL);
            p->state = TIDE_PROTO_END;
            return act(p->sync ? TIDE_PROTO_DO_POST_BARRIER : TIDE_PROTO_DO_POST_STATUS, NULL);
        }
        /* A rank whose own work is done joins the next round at once: when it is the last,
         * that round ends the phase without waiting for the interval. */
        if (in->own_open != 0 &&
            (p->next_round == INFINITY ||
             in->now < (p->turn ? p->turn(p->turn_ctx, p->next_round) : p->next_round)))
            return act(0, NULL);
        if (p->agreed && !p->rounded && p->next_round == INFINITY) {
            p->state = TIDE_PROTO_END; /* every rank's closing collective: no rank reads it */
            return act(TIDE_PROTO_DO_POST_BARRIER, NULL);
        }
        p->rounded = true;
        p->state = TIDE_PROTO_ROUND;
        return act(TIDE_PROTO_DO_POST_STATUS, NULL);
    case TIDE_PROTO_ROUND:
        if (!in->coll_done) return act(0, NULL);
        if (!agreed(p, in)) return act(TIDE_PROTO_DO_MISMATCH, in->all);
        if (all_done(in->all, p->size)) { /* every rank saw the same round: all leave together */
            p->state = TIDE_PROTO_GATHER;
            return act(TIDE_PROTO_DO_POST_RECORDS, NULL);
        }
        p->state = TIDE_PROTO_RUN;
        return act(TIDE_PROTO_DO_ROUND, in->all);
    case TIDE_PROTO_END:
        if (!in->coll_done) return act(0, NULL);
        if (!p->sync && !agreed(p, in)) return act(TIDE_PROTO_DO_MISMATCH, in->all);
        p->state = TIDE_PROTO_GATHER;
        return act(TIDE_PROTO_DO_POST_RECORDS, NULL);
    case TIDE_PROTO_GATHER:
        if (!in->coll_done) return act(0, NULL);
        p->nphases++;
        p->state = TIDE_PROTO_IDLE;
        return act(TIDE_PROTO_DO_FINISH, NULL);
    }
    return act(0, NULL);
}

/* ---- phase agreement ------------------------------------------------------------------------- */

static bool same_step(const tide_rank_status *a, const tide_rank_status *b)
{
    return a->phase == b->phase;
}

bool tide_proto_steps_agree(const tide_rank_status *all, int n)
{
    for (int i = 1; i < n; i++)
        if (!same_step(&all[i], &all[0])) return false;
    return true;
}

static void describe_step(const tide_rank_status *s, char *out, size_t len)
{
    if (tide_proto_step_finalizing(s->phase))
        snprintf(out, len, "in tide_finalize after %.0f phases", floor(s->phase));
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

void tide_proto_mismatch_line(const tide_rank_status *all, int n, char *out, size_t cap)
{
    int ref = 0, nref = 0, listed = 0;
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (int j = 0; j < n; j++)
            same += same_step(&all[i], &all[j]);
        if (same > nref) nref = same, ref = i;
    }
    char step[64];
    size_t len = 0;
    if (cap) out[0] = '\0';
    for (int i = 0; i < n && listed < 4; i++) {
        if (same_step(&all[i], &all[ref])) continue;
        describe_step(&all[i], step, sizeof step);
        append(out, cap, &len, "%srank %d is %s", listed++ ? ", " : "", i, step);
    }
    if (n - nref > listed) append(out, cap, &len, ", and %d more ranks", n - nref - listed);
    describe_step(&all[ref], step, sizeof step);
    if (nref > 1)
        append(out, cap, &len, ", the others %s", step);
    else
        append(out, cap, &len, ", rank %d %s", ref, step);
}

/* ---- the plan gate -----------------------------------------------------------------------------
 */

void tide_plan_gate_init(tide_plan_gate *g, bool on, bool alternate, bool plans)
{
    memset(g, 0, sizeof *g);
    g->probe_every = TIDE_GATE_EXPLORE;
    g->on = on;
    g->alternate = on && alternate;
    g->plans = plans;
}

bool tide_proto_inline_phases(const tide_lb_ops *ops, int phase_driver, int ranks)
{
    return phase_driver == TIDE_PHASE_DRIVER_AUTO && (ranks == 1 || !tide_host_acts(ops));
}

bool tide_plan_gate_wanted(unsigned lb_flags, int phase_driver, int plan_gate, int ranks)
{
    return (lb_flags & TIDE_LB_GATED) && phase_driver == TIDE_PHASE_DRIVER_AUTO &&
           plan_gate != TIDE_PLAN_GATE_OFF && ranks > 1;
}

void tide_plan_gate_setup(tide_plan_gate *g, unsigned lb_flags, int phase_driver, int plan_gate,
                          int ranks)
{
    tide_plan_gate_init(g, tide_plan_gate_wanted(lb_flags, phase_driver, plan_gate, ranks),
                        plan_gate == TIDE_PLAN_GATE_ALTERNATE, lb_flags & TIDE_LB_PLANS);
}

static void push(double *last2, int *n, double v)
{
    last2[1] = last2[0];
    last2[0] = v;
    if (*n < 2) (*n)++;
}

static double mean2(const double *last2)
{
    return 0.5 * (last2[0] + last2[1]);
}

void tide_plan_gate_end(tide_plan_gate *g, const tide_gate_phase *ph)
{
    if (!g->on) return;
    g->record = ph->time;
    if (g->alternate) {
        g->idle_next = !ph->idle;
        return;
    }
    double score = ph->time + ph->tail - ph->own, potential = ph->own - ph->mean;
    /* A phase after one of the other kind runs on state the other kind left (a plan after idle
     * phases has no fresh transfer rates nor plan costs; an idle phase follows a plan's moves):
     * only a settled phase, one after a phase of its own kind, is a sample. */
    bool settled = ph->idle == g->last_idle;
    g->last_idle = ph->idle;
    if (settled && ph->idle) {
        push(g->idle_s, &g->nidle, score);
        g->block++;
    } else if (settled && (ph->predicted || !g->plans)) {
        push(g->plan, &g->nplan, score);
        g->promising[1] = g->promising[0];
        g->promising[0] = score < TIDE_GATE_WASTE * potential;
    }
    if (!ph->idle) {
        g->since_idle++;
        g->overhead = ph->time + ph->tail - ph->busy;
    }
    /* A phase without the protocol takes at least the heaviest rank's own load per worker
     * (score 0): a plan that scored below it won for sure. One that scored below
     * TIDE_GATE_WASTE of the imbalance it could remove is promising enough not to cost an idle
     * block either (an idle phase costs up to the whole imbalance where plans win). Either of
     * the last two: one slow plan in training does not start a block. */
    bool sure = g->nplan > 0 && (g->promising[0] || (g->nplan > 1 && g->promising[1]));
    /* A plan phase takes at least the mean load per worker plus its protocol: where the protocol
     * alone cost more than the imbalance a plan could remove, no plan beats an idle phase. */
    if (!g->idle && !ph->idle && !sure && g->overhead > potential) {
        g->idle = g->idle_next = true;
        g->potential = potential;
        g->idle_run = 0;
        return;
    }
    if (!g->idle) {
        if (ph->idle && g->block < 2) { /* an idle block goes on until it has two samples */
            g->idle_next = true;
            return;
        }
        if (ph->idle) { /* the block is complete: the last two of each kind decide */
            g->idle = g->idle_next = g->nplan >= 2 && mean2(g->plan) > mean2(g->idle_s);
            g->potential = potential;
            g->idle_run = 0;
            return;
        }
        bool sample = g->nidle < 2 ? g->nplan >= 2 : g->since_idle >= TIDE_GATE_EXPLORE;
        g->idle_next = sample && !sure;
        if (g->idle_next) g->block = 0, g->since_idle = 0;
        return;
    }
    if (ph->idle) { /* a probe only when the imbalance a plan could remove has grown, or the
                     * idle phases since the last probe reached probe_every, and only beyond
                     * what the last protocol phase's protocol alone cost */
        g->idle_run++;
        bool grown = potential > TIDE_GATE_GROWTH * g->potential;
        bool due = g->idle_run >= g->probe_every;
        g->idle_next = !((grown || due) && potential > g->overhead);
        if (!g->idle_next) g->idle_run = 0;
        return;
    }
    if (!settled || (g->plans && !ph->predicted)) { /* a probe runs until it has a settled
                                                     * plan sample */
        g->idle_next = false;
        return;
    }
    g->idle = g->idle_next = g->plan[0] > mean2(g->idle_s);
    g->potential = potential;
    /* A probe that lost doubles the wait before the next due one; one that won resets it. */
    g->probe_every = g->idle ? (g->probe_every < TIDE_GATE_PROBE_MAX / 2 ? 2 * g->probe_every
                                                                         : TIDE_GATE_PROBE_MAX)
                             : TIDE_GATE_EXPLORE;
}

void tide_plan_gate_ended(tide_plan_gate *g, bool idle, double phase_time)
{
    if (g->on) g->tail[idle] = phase_time - g->record;
}
