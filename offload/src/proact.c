/* `proact` (the proactive scheme): at phase start every rank allgathers its predicted load, its
 * uncertainty and its task count, runs the same planner (Algorithm 1, plan_proact.c) on the same
 * input, and sends the tasks of its own row of the plan; when the task model gives per-task
 * weights on some rank, plan_proact_weighted.c chooses which tasks leave. A surplus within a
 * rank's uncertainty (times TIDE_PROACT_MARGIN) moves nothing, one beyond it moves whole, and a
 * victim leaves that much of its room empty. Every move must also pay for its
 * transfer (plan_transfer.c): a task that would arrive too late to gain anything stays. During
 * the phase a safety net takes back the moves that fall behind: when the sender's workers run
 * out of own tasks while some still wait to leave, they run those themselves. Until every
 * rank has a prediction it behaves as `react`. `proact_react` adds reactive corrections
 * during the phase to the plan, for what the prediction missed. */
#include "tide_lb.h"
#include "tide_plan.h"

#include <math.h>
#include <stdlib.h>

enum { K_THRESHOLD, K_MAX_TASKS, K_MARGIN };

static const tide_lb_knob proact_margin = {
    .name = "TIDE_PROACT_MARGIN",
    .def = 1,
    .min = 0,
    .max = 100,
    .help = "`proact`, `proact_react`: each rank's planner margin is this times its prediction "
            "uncertainty (or a suspect last load's distance from the prediction, when larger: "
            "docs/offload-planner.md); a surplus within it moves nothing (beyond it, all of it "
            "moves) and a victim leaves it empty (0: plan on the predictions alone)"};

typedef struct proact_state {
    bool planned; /* this phase's plan was made (every rank had a prediction) */
    bool behind;  /* the safety net took moves back: this rank sends no more this phase */
    int kind;     /* this (then the last) phase's plan: PLAN_NONE, PLAN_UNIFORM, PLAN_WEIGHTED */
    /* When phase_begin returned in the last phase of each kind: the latest plan_at over the
     * ranks (0: none yet). Every rank keeps the same values, from the same status records. */
    double at[3];
    /* The transfer model starts a rank's sends at its plan_at of the last phase when the plan
     * is of the same kind; else no later than this (that kind's last time). */
    double ready_cap;
    /* The least plan_at over the ranks of the last phase without a plan: what a status
     * allgather costs, without the ranks' skew at the start sync (plan_kind's estimate). */
    double status_cost;
    bool rounds; /* proact_react: timed rounds this phase (rounds_needed) */
} proact_state;

enum { PLAN_NONE, PLAN_UNIFORM, PLAN_WEIGHTED }; /* zeroed state: PLAN_NONE */

/* A weighted plan that came later than this fraction of the predicted phase is not made again
 * until the predicted phase is twice as long (plan_kind): the uniform plan, made from the
 * status alone, comes in its place. */
#define WEIGHTED_LATE 0.5

/* What moving costs on every rank, from the phase-start status and the planned loads. */
static tide_xfer_rank *xfer_ranks(const tide_lb_view *v, const double *load)
{
    const proact_state *s = v->state;
    tide_xfer_rank *r = malloc((size_t)v->size * sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < v->size; i++) {
        const tide_rank_status *st = &v->all[i];
        double ready = st->plan_at > 0 ? st->plan_at : 0;
        r[i] = (tide_xfer_rank){.load = load[i] > 0 ? load[i] : 0,
                                .threads = st->threads >= 1 ? st->threads : 1,
                                .bw = st->send_bw > 0 ? st->send_bw : 0,
                                .bytes = st->task_bytes > 0 ? st->task_bytes : 0,
                                .ready = ready < s->ready_cap ? ready : s->ready_cap};
    }
    return r;
}

/* Keeps the sends that pay for their transfer (arrival >= 0), in the transport's order, and
 * reports this rank's planned transfer time. False when out of memory. */
static bool cost_moves(const tide_lb_view *v, const tide_lb_actions *a, const double *load,
                       tide_xfer_send *sends, size_t n)
{
    tide_xfer_rank *rank = xfer_ranks(v, load);
    bool ok = rank && tide_plan_transfer_order(v->size, sends, n) == TIDE_PLAN_OK &&
              tide_plan_transfer(v->size, rank, sends, n, NULL) == TIDE_PLAN_OK;
    if (ok && a->report_transfer) {
        double last = -1;
        for (size_t k = 0; k < n; k++)
            if (sends[k].from == v->rank && sends[k].arrival > last) last = sends[k].arrival;
        a->report_transfer(a->ctx, last);
    }
    free(rank);
    return ok;
}

/* The planner's margins: each rank's prediction uncertainty times TIDE_PROACT_MARGIN, widened to
 * a suspect last load's distance (L_suspect: a spike, or the first load of a step, which the next
 * load tells apart) unless the rank's load is a pooled task model's now (adopted[i]: it weighed
 * the phase's tasks with coefficients it adopted; NULL: no rank did). Adopted loads kept the wide
 * margin on the FDR platform's senders, which then moved nothing (a phase at 2.97 ms of work
 * per worker against 1.3, docs/sim.md). A rank that took part in the pooling but found no
 * vector to adopt still plans with its own guess, and keeps the suspect's margin. */
static void margins(const tide_lb_view *v, const bool *adopted, double *m)
{
    for (int i = 0; i < v->size; i++) {
        const tide_rank_status *st = &v->all[i];
        double unc = st->L_unc > 0 ? st->L_unc : 0;
        if (!(adopted && adopted[i]) && st->L_suspect > unc) unc = st->L_suspect;
        m[i] = v->knob[K_MARGIN] * unc;
    }
}

/* What the plan leaves on this rank: its predicted load after the plan above the average, and
 * why that surplus stayed (lightest = its lightest task that could have moved). */
static void report(const tide_lb_view *v, const tide_lb_actions *a, const double *after,
                   const double *margin, double lightest)
{
    if (!a->report_plan) return;
    double avg = 0; /* a plan moves load, it does not change the total */
    for (int i = 0; i < v->size; i++)
        avg += after[i] / v->size;
    double residual = after[v->rank] - avg;
    int limit = TIDE_LB_LIMIT_NONE;
    if (residual > 0 && residual <= margin[v->rank])
        limit = TIDE_LB_LIMIT_UNCERTAINTY;
    else if (residual > 0 && residual < lightest)
        limit = TIDE_LB_LIMIT_GRANULARITY;
    else if (residual > 0)
        limit = TIDE_LB_LIMIT_CAPACITY;
    a->report_plan(a->ctx, residual, limit);
}

/* The weighted plan's moves as sends; those that do not pay for their transfer stay (dest[t]
 * becomes the task's own rank again). */
static bool cost_weighted(const tide_lb_view *v, const tide_lb_actions *a, const double *load,
                          const int64_t *off, const double *w, int32_t *dest)
{
    size_t n = 0;
    for (int i = 0; i < v->size; i++)
        for (int64_t t = off[i]; t < off[i + 1]; t++)
            n += dest[t] != i;
    tide_xfer_send *sends = malloc((n ? n : 1) * sizeof *sends);
    if (!sends) return false;
    n = 0;
    for (int i = 0; i < v->size; i++)
        for (int64_t t = off[i]; t < off[i + 1]; t++)
            if (dest[t] != i) sends[n++] = (tide_xfer_send){i, dest[t], t, w[t], 0};
    bool ok = cost_moves(v, a, load, sends, n);
    for (size_t k = 0; ok && k < n; k++)
        if (sends[k].arrival < 0) dest[sends[k].unit] = sends[k].from;
    free(sends);
    return ok;
}

typedef struct candidate {
    double load; /* this rank's tasks weighed with the vector */
    int rank;    /* whose vector, at `at` in the gathered vectors */
    long at;
} candidate;

static int by_load(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->load != b->load) return a->load < b->load ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Every rank's one double (mine) into out, in rank order. */
static void allgather_one(const tide_lb_view *v, const tide_lb_actions *a, double mine, double *out)
{
    int *ones = malloc((size_t)v->size * sizeof *ones);
    if (!ones) a->fatal(a->ctx, "proact: out of memory planning a phase");
    for (int i = 0; i < v->size; i++)
        ones[i] = 1;
    a->allgatherv(a->ctx, &mine, 1, ones, out);
    free(ones);
}

/* A rank whose task model cannot weigh this phase's tasks (task_pred 0: its tasks' features
 * never varied so far, as a dry region's sections, or now vary in a way its fit never saw, as
 * when the water reaches them; the task model does not extrapolate there) has only a guess from
 * its own past loads. When other ranks' task models weigh theirs, it borrows them: the
 * application's features mean the same on every rank. Every fitted rank's coefficients are
 * gathered; the rank weighs its tasks with each whole vector (a vector is one consistent fit:
 * mixing coefficients of different fits is not, when features are collinear) and adopts the
 * one whose total is the median, so that one odd fit does not decide. A vector that knows
 * nothing of a column its tasks use (NaN) is skipped. Two allgathers (the counts, then the
 * vectors), only in phases where ranks with and without per-task weights meet. Returns true on
 * every rank when they took place (then the ranks without weights of their own predict their
 * loads from their weighted tasks, adopted or not, and share them: plan_weighted). */
static bool pool_task_models(const tide_lb_view *v, const tide_lb_actions *a)
{
    int np = v->size, me = v->rank;
    if (!a->task_coef || !a->adopt_task_coef) return false;
    int with = 0;
    for (int i = 0; i < np; i++)
        with += v->all[i].task_pred == 1;
    if (with == 0 || with == np) return false;
    double mine[TIDE_LB_COEF_MAX], n_me = 0;
    if (v->all[me].task_pred == 1) n_me = a->task_coef(a->ctx, mine, TIDE_LB_COEF_MAX);
    int *counts = malloc((size_t)np * sizeof *counts);
    double *ns = malloc((size_t)np * sizeof *ns);
    candidate *cand = malloc((size_t)np * sizeof *cand);
    if (!counts || !ns || !cand) a->fatal(a->ctx, "proact: out of memory pooling task models");
    allgather_one(v, a, n_me, ns);
    long total = 0;
    for (int i = 0; i < np; i++)
        total += counts[i] = (int)ns[i];
    double *all = malloc((size_t)(total + 1) * sizeof *all);
    if (!all) a->fatal(a->ctx, "proact: out of memory pooling task models");
    a->allgatherv(a->ctx, mine, counts[me], counts, all);
    if (v->all[me].task_pred != 1) {
        int m = 0;
        long at = 0;
        for (int i = 0; i < np; at += counts[i], i++)
            if (counts[i] > 0 && a->adopt_task_coef(a->ctx, all + at, counts[i], &cand[m].load))
                cand[m].rank = i, cand[m++].at = at;
        if (m > 0) { /* the last call wins: the median vector's, adopted again */
            qsort(cand, (size_t)m, sizeof *cand, by_load);
            const candidate *med = &cand[m / 2];
            double load;
            a->adopt_task_coef(a->ctx, all + med->at, counts[med->rank], &load);
        }
    }
    free(counts), free(ns), free(cand), free(all);
    return true;
}

/* The planner offloads only from ranks above the average load (plan_proact_weighted.c), so
 * only they contribute their tasks' weights to the allgatherv; every other rank's tasks weigh
 * 0 in w (they never move). At 512 ranks on 1 GbE the whole vector was 512 x 128 doubles, and
 * its 4 ms came before any plan (docs/sim.md). A rank within rounding of the average counts
 * as above it: one that contributes in vain costs bytes, one missing would change the plan. */
static void gather_sender_weights(const tide_lb_view *v, const tide_lb_actions *a,
                                  const double *load, const int64_t *off, const double *mine,
                                  double *w)
{
    int np = v->size, me = v->rank;
    double sum = 0;
    for (int i = 0; i < np; i++)
        sum += load[i];
    double avg = sum / np, floor = avg - 1e-9 * fabs(avg);
    int *counts = malloc((size_t)np * sizeof *counts);
    double *got = malloc((size_t)(off[np] + 1) * sizeof *got);
    if (!counts || !got) a->fatal(a->ctx, "proact: out of memory planning a phase");
    for (int i = 0; i < np; i++)
        counts[i] = load[i] > floor && load[i] > 0 ? (int)(off[i + 1] - off[i]) : 0;
    a->allgatherv(a->ctx, mine, counts[me], counts, got);
    long at = 0;
    for (int i = 0; i < np; i++)
        for (int64_t t = off[i]; t < off[i + 1]; t++)
            w[t] = counts[i] > 0 ? got[at++] : 0;
    free(counts), free(got);
}

/* With per-task weights the plan chooses which tasks leave so that the moved load fits each
 * victim's deficit: every rank that may send contributes its tasks' weights, in their order
 * when the phase opened, to one allgatherv, which every rank must join even when it has no
 * per-task weights or contributes none.
 * The workers run meanwhile (TIDE_LB_START_EARLY): a task that started, or will have when the
 * plan is applied, comes with a negative weight and counts as load that cannot move. */
static bool plan_weighted(const tide_lb_view *v, const tide_lb_actions *a)
{
    int np = v->size, me = v->rank;
    int *counts = malloc((size_t)np * sizeof *counts);
    int64_t *off = malloc((size_t)(np + 1) * sizeof *off);
    double *load = malloc((size_t)np * sizeof *load), *margin = malloc((size_t)np * sizeof *margin);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    if (!counts || !off || !load || !margin || !moves)
        a->fatal(a->ctx, "proact: out of memory planning a phase");
    off[0] = 0;
    for (int i = 0; i < np; i++) {
        counts[i] = (int)v->all[i].ntasks;
        off[i + 1] = off[i] + counts[i];
        load[i] = tide_lb_key_value(&v->all[i], TIDE_LB_KEY_PRED);
    }
    double *w = malloc((size_t)(off[np] + 1) * sizeof *w);
    int32_t *dest = malloc((size_t)(off[np] + 1) * sizeof *dest);
    double *mine = malloc((size_t)(counts[me] + 1) * sizeof *mine);
    if (!w || !dest || !mine) a->fatal(a->ctx, "proact: out of memory planning a phase");
    bool pooled = pool_task_models(v, a);
    /* Without per-task predictions here (no fit of its own and none pooled) every task weighs
     * the average, as in the uniform plan. */
    double avg = v->all[me].ntasks > 0 ? load[me] / v->all[me].ntasks : 0;
    bool weighed = a->task_times(a->ctx, mine, counts[me]);
    if (!weighed)
        for (int k = 0; k < counts[me]; k++)
            mine[k] = avg;
    /* A rank that adopted pooled coefficients predicts the sum of its weighted tasks now, the
     * started ones included; every rank needs the new loads to know who may send, and whether
     * each load is an adopted one (its margin, above). A rank without a fit of its own weighs
     * its tasks only with coefficients it adopted. */
    bool *adopted = NULL;
    if (pooled) {
        double sum = 0, pair[2], *pairs = malloc((size_t)np * 2 * sizeof *pairs);
        int *twos = malloc((size_t)np * sizeof *twos);
        adopted = malloc((size_t)np * sizeof *adopted);
        if (!pairs || !twos || !adopted) a->fatal(a->ctx, "proact: out of memory planning a phase");
        for (int k = 0; k < counts[me]; k++)
            sum += fabs(mine[k]);
        bool adopted_me = v->all[me].task_pred != 1 && weighed;
        pair[0] = adopted_me ? sum : load[me];
        pair[1] = adopted_me;
        for (int i = 0; i < np; i++)
            twos[i] = 2;
        a->allgatherv(a->ctx, pair, 2, twos, pairs);
        for (int i = 0; i < np; i++)
            load[i] = pairs[2 * i], adopted[i] = pairs[2 * i + 1] != 0;
        free(pairs), free(twos);
    }
    gather_sender_weights(v, a, load, off, mine, w);
    for (int64_t t = 0; t < off[np]; t++) /* started, or about to: it stays */
        if (w[t] < 0) w[t] = 0;
    margins(v, adopted, margin);
    free(adopted);
    tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
    const int32_t *order = pooled ? NULL : tide_lb_order(v, TIDE_LB_KEY_PRED);
    bool ok = tide_plan_proact_weighted_ordered(np, load, margin, order, off, w, NULL, dest,
                                                &plan) == TIDE_PLAN_OK;
    if (ok) ok = cost_weighted(v, a, load, off, w, dest);
    if (ok) {
        a->offload_selected(a->ctx, dest + off[me], counts[me]);
        double lightest = INFINITY;
        for (int i = 0; i < np; i++) /* load[] becomes the predicted load after the plan */
            for (int64_t t = off[i]; t < off[i + 1]; t++) {
                load[i] -= dest[t] != i ? w[t] : 0;
                if (dest[t] != i) load[dest[t]] += w[t];
            }
        for (int k = 0; k < counts[me]; k++) /* mine: w holds no weights of a non-sender */
            if (dest[off[me] + k] == me && mine[k] > 0 && mine[k] < lightest) lightest = mine[k];
        report(v, a, load, margin, lightest);
    }
    free(counts), free(off), free(load), free(margin), free(moves), free(w), free(dest), free(mine);
    return ok;
}

/* Sends this rank's row of the uniform plan one task per victim per pass: with TIDE_OFFLOAD=rr
 * the tasks also leave round-robin across victims (proact_off1); packed sends one package per
 * victim (proact_off2). */
static void send_row(const tide_lb_view *v, const tide_lb_actions *a, int64_t *row)
{
    bool more = true;
    while (more) {
        more = false;
        for (int j = 0; j < v->size; j++)
            if (j != v->rank && row[j] > 0 && a->offload(a->ctx, j, 1) == 1) {
                row[j]--;
                more = true;
            }
    }
}

/* The uniform plan's predicted loads after it (tasks of average weight w_i = L_i / N_i). */
static void report_uniform(const tide_lb_view *v, const tide_lb_actions *a,
                           const tide_move_plan *plan, const double *load, const int64_t *n,
                           const double *margin)
{
    double *after = malloc((size_t)v->size * sizeof *after);
    if (!after) return; /* statistics only */
    for (int i = 0; i < v->size; i++)
        after[i] = load[i];
    for (size_t k = 0; k < plan->nmoves; k++) {
        const tide_move *m = &plan->moves[k];
        double w = load[m->from] / (double)n[m->from];
        after[m->from] -= (double)m->count * w;
        after[m->to] += (double)m->count * w;
    }
    int me = v->rank;
    report(v, a, after, margin, n[me] > 0 ? load[me] / (double)n[me] : INFINITY);
    free(after);
}

/* The uniform plan's moves as sends (tasks of average weight load / n); each move keeps the
 * count of its sends that pay for their transfer. */
static bool cost_uniform(const tide_lb_view *v, const tide_lb_actions *a, tide_move_plan *plan,
                         const double *load, const int64_t *n)
{
    size_t count = 0;
    for (size_t k = 0; k < plan->nmoves; k++)
        count += (size_t)plan->moves[k].count;
    tide_xfer_send *sends = malloc((count ? count : 1) * sizeof *sends);
    if (!sends) return false;
    count = 0;
    for (size_t k = 0; k < plan->nmoves; k++) {
        tide_move *m = &plan->moves[k];
        double w = load[m->from] / (double)n[m->from];
        for (int64_t c = 0; c < m->count; c++)
            sends[count++] = (tide_xfer_send){m->from, m->to, (int64_t)k, w, 0};
        m->count = 0;
    }
    bool ok = cost_moves(v, a, load, sends, count);
    for (size_t k = 0; ok && k < count; k++)
        plan->moves[sends[k].unit].count += sends[k].arrival >= 0;
    size_t kept = 0; /* a plan has no empty move (tide_plan.h) */
    for (size_t k = 0; k < plan->nmoves; k++)
        if (plan->moves[k].count > 0) plan->moves[kept++] = plan->moves[k];
    plan->nmoves = kept;
    free(sends);
    return ok;
}

static bool plan_uniform(const tide_lb_view *v, const tide_lb_actions *a)
{
    int np = v->size;
    double *load = malloc((size_t)np * sizeof *load), *margin = malloc((size_t)np * sizeof *margin);
    int64_t *n = malloc((size_t)np * sizeof *n), *row = malloc((size_t)np * sizeof *row);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    bool ok = load && margin && n && row && moves;
    if (ok) {
        for (int i = 0; i < np; i++) {
            load[i] = tide_lb_key_value(&v->all[i], TIDE_LB_KEY_PRED);
            n[i] = (int64_t)v->all[i].ntasks;
        }
        margins(v, NULL, margin);
        tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
        ok = tide_plan_proact_ordered(np, load, margin, tide_lb_order(v, TIDE_LB_KEY_PRED), n, NULL,
                                      &plan) == TIDE_PLAN_OK &&
             cost_uniform(v, a, &plan, load, n) &&
             tide_plan_row(&plan, n, v->rank, row) == TIDE_PLAN_OK;
        if (ok) report_uniform(v, a, &plan, load, n, margin);
    }
    if (ok) send_row(v, a, row);
    free(load), free(margin), free(n), free(row), free(moves);
    return ok;
}

/* This phase's plan, PLAN_WEIGHTED or PLAN_UNIFORM. Per-task weights on any rank make it
 * weighted (a rank without them counts its tasks at their average weight, so that one rank
 * whose task model could not fit does not hide every other rank's heavy tasks), unless the
 * last weighted plan came later than WEIGHTED_LATE of the phase that the heaviest rank
 * predicts for its workers. A weighted plan waits for collectives after the status (the
 * pooled task models: two, and one for the loads they give; the senders' weights: one): with
 * many ranks on a slow network (512 simulated ranks on 1 GbE, docs/sim.md) they take longer
 * than the heavy ranks' work, whose tasks have all started by then, and nothing is left to
 * move. The uniform plan comes from the status alone. The cost is the last weighted plan's,
 * remembered while uniform ones are made, so the choice does not alternate; a predicted phase
 * long enough brings the weighted plan back. Before any weighted plan was made its cost is
 * WEIGHTED_COLLECTIVES times what the last phase without a plan took (status_cost: its status
 * allgather; the weighted plan adds up to four collectives, the weights' the largest), under
 * the same hysteresis: the first two weighted plans at 512 simulated ranks on 1 GbE came 4.8 ms
 * into phases that none ran in 7.2 ms and took 1.07 of none's; with the estimate (5 x 0.9 ms)
 * they are uniform and take 0.94 and 0.89, while on FDR they stay weighted. */
#define WEIGHTED_COLLECTIVES 5

static int plan_kind(const tide_lb_view *v, bool per_task)
{
    proact_state *s = v->state;
    double phase = 0;
    for (int i = 0; i < v->size; i++) {
        const tide_rank_status *st = &v->all[i];
        double w = st->L_pred / (st->threads >= 1 ? st->threads : 1);
        if (w > phase) phase = w;
    }
    if (!per_task) return PLAN_UNIFORM;
    /* Hysteresis: back to weighted plans only when the phase is twice as long as needed to
     * keep them, so that one long prediction does not bring back a plan that comes too late. */
    double cost = s->at[PLAN_WEIGHTED];
    double late = s->kind == PLAN_WEIGHTED ? WEIGHTED_LATE : WEIGHTED_LATE / 2;
    if (!(cost > 0)) { /* none made yet */
        if (!(s->status_cost > 0)) return PLAN_WEIGHTED;
        cost = WEIGHTED_COLLECTIVES * s->status_cost;
    }
    return cost <= late * phase ? PLAN_WEIGHTED : PLAN_UNIFORM;
}

/* True when a plan was made: when every rank had a prediction, which the start statuses say
 * alike on every rank (rounds_needed's answer rests on it: TIDE_LB_ROUNDS_AGREED). A plan that
 * fails (out of memory) ends the run with one line rather than leave this rank planless. */
static bool plan_and_send(const tide_lb_view *v, const tide_lb_actions *a)
{
    proact_state *s = v->state;
    double latest = 0, least = INFINITY;
    for (int i = 0; i < v->size; i++) {
        if (v->all[i].plan_at > latest) latest = v->all[i].plan_at;
        if (v->all[i].plan_at < least) least = v->all[i].plan_at;
    }
    s->at[s->kind] = latest;
    if (s->kind == PLAN_NONE) s->status_cost = least;
    bool per_task = false;
    for (int i = 0; i < v->size; i++) {
        if (v->all[i].L_pred < 0) {
            s->kind = PLAN_NONE;
            return false;
        }
        if (v->all[i].task_pred == 1) per_task = true;
    }
    if (v->size < 2) return true;
    int last = s->kind, kind = plan_kind(v, per_task);
    /* A uniform plan not made yet costs what a phase without a plan did: the status. */
    double known = kind == PLAN_UNIFORM && s->at[kind] <= 0 ? s->at[PLAN_NONE] : s->at[kind];
    s->ready_cap = kind == last || !(known > 0) ? INFINITY : known;
    s->kind = kind;
    if (!(kind == PLAN_WEIGHTED ? plan_weighted(v, a) : plan_uniform(v, a)))
        a->fatal(a->ctx, "proact: planning the phase failed (out of memory)");
    return true;
}

/* proact_react's reactive rounds after a plan cost the phase about one round at its end: a
 * rank whose work is done joins the next round, after the one in flight. They pay only while a
 * round is a small part of the phase: ROUNDS_SHARE of the work per worker the plan aims at
 * (the mean predicted load per worker), a round costing what the fastest rank's last phase_begin
 * took (the least plan_at: the start sync's status allgather and the plan). At 512 simulated
 * ranks on 1 GbE, rounds of 0.9 ms in a 6.5 ms phase made no move the plan had not and put
 * every planned phase at 1.01-1.03 of none's median (0.86-0.96 without them, docs/sim.md).
 * Every rank decides alike, from the same status records: a round needs every rank. */
#define ROUNDS_SHARE 0.25

static bool rounds_pay(const tide_lb_view *v)
{
    double cost = INFINITY, load = 0, workers = 0;
    for (int i = 0; i < v->size; i++) {
        const tide_rank_status *st = &v->all[i];
        if (st->plan_at > 0 && st->plan_at < cost) cost = st->plan_at;
        if (st->L_pred > 0) load += st->L_pred;
        workers += st->threads > 0 ? st->threads : 1;
    }
    return !isfinite(cost) || cost <= ROUNDS_SHARE * load / workers;
}

static void proact_begin(const tide_lb_view *v, const tide_lb_actions *a)
{
    proact_state *s = v->state;
    s->behind = false;
    s->planned = plan_and_send(v, a);
    s->rounds = !s->planned || rounds_pay(v);
}

/* The safety net: a task still waiting to leave when its sender's workers would otherwise reach
 * it is late, and stays. The workers reach the tasks waiting to leave when the own queue holds
 * fewer tasks than they are: then the net takes back as many as make up the difference, the
 * last ones the transport would send. The transport drains the send queue from the front and
 * the workers from the back, each at its real pace, so a slow transport costs the phase no more
 * than keeping the tasks would have, and a fast one is not held back by a pessimistic guess. A
 * rank that took moves back makes no reactive ones for the rest of the phase (they would only
 * be taken back in turn), and none while earlier moves still wait to leave (the link is busy).
 * Before the first plan, when proact moves as react does, the net works the same way. */
static void proact_progress(const tide_lb_view *v, const tide_lb_actions *a)
{
    proact_state *s = v->state;
    int workers = v->threads > 0 ? v->threads : 1;
    if (v->outgoing <= 0 || v->queued >= workers || !a->reclaim) return;
    if (a->reclaim(a->ctx, workers - (int)v->queued) > 0) s->behind = true;
}

/* progress acts at once when the queue is short of the workers, else only after a change. */
static double proact_quiet_until(const tide_lb_view *v)
{
    int workers = v->threads > 0 ? v->threads : 1;
    return v->outgoing > 0 && v->queued < workers ? v->now : INFINITY;
}

/* Whether some rank's planned tasks are still on their way: its receivers' queues do not show
 * them yet and its own no longer does, so queue lengths misstate both sides. */
static bool plan_underway(const tide_lb_view *v)
{
    for (int i = 0; i < v->size; i++)
        if (v->all[i].plan_moving > 0) return true;
    return false;
}

/* A reactive move (react's pairing), unless earlier moves still wait to leave (the link is
 * busy), the safety net took some back this phase, or the plan's tasks are still on their way
 * anywhere: pairing on queue lengths then sends tasks to the ranks whose planned tasks have
 * not arrived yet and moves them on again later (the MxM on a busy node: 220-340 reactive moves
 * a phase on top of the plan's 490, median phase 1.095 s against 1.075 with this rule,
 * docs/performance.md section 13). */
static void react_move(const tide_lb_view *v, const tide_lb_actions *a)
{
    const proact_state *s = v->state;
    if (s->behind || v->outgoing > 0 || !v->all || plan_underway(v)) return;
    tide_lb_pair p = tide_lb_react_pair(v, v->knob[K_THRESHOLD], v->knob[K_MAX_TASKS]);
    if (p.send > 0) a->offload(a->ctx, p.partner, p.send);
}

static void proact_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    const proact_state *s = v->state;
    if (!s->planned) react_move(v, a);
}

/* A planned phase needs no rounds: its round does nothing (the safety net runs in progress). */
static bool proact_rounds_needed(const tide_lb_view *v)
{
    const proact_state *s = v->state;
    return !s->planned;
}

static void proact_react_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    react_move(v, a);
}

static bool proact_react_rounds_needed(const tide_lb_view *v)
{
    const proact_state *s = v->state;
    return s->rounds;
}

static const tide_lb_knob *const proact_knobs[] = {
    &tide_lb_knob_react_threshold, &tide_lb_knob_react_max_tasks, &proact_margin, NULL};

const tide_lb_ops tide_lb_proact = {.name = "proact",
                                    .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_PLANS |
                                             TIDE_LB_START_EARLY | TIDE_LB_ROUNDS_AGREED |
                                             TIDE_LB_GATED,
                                    .state_size = sizeof(proact_state),
                                    .knobs = proact_knobs,
                                    .help = "proactive offloading from predicted loads",
                                    .phase_begin = proact_begin,
                                    .round = proact_round,
                                    .progress = proact_progress,
                                    .quiet_until = proact_quiet_until,
                                    .rounds_needed = proact_rounds_needed};
const tide_lb_ops tide_lb_proact_react = {.name = "proact_react",
                                          .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS |
                                                   TIDE_LB_PLANS | TIDE_LB_START_EARLY |
                                                   TIDE_LB_ROUNDS_AGREED | TIDE_LB_GATED,
                                          .state_size = sizeof(proact_state),
                                          .knobs = proact_knobs,
                                          .help = "proactive plan plus reactive corrections",
                                          .phase_begin = proact_begin,
                                          .round = proact_react_round,
                                          .progress = proact_progress,
                                          .quiet_until = proact_quiet_until,
                                          .rounds_needed = proact_react_rounds_needed};
