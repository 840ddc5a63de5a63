/* The phase protocol (tide_core_proto.h): a fake driver steps 3 ranks through phases, without
 * and with rounds, with and without the start sync, and meets a phase mismatch; the round timing
 * of a strategy that needs no rounds, and when the workers wait for the plan. Its collectives
 * complete once every rank has posted them; time is a turn counter in seconds. */
#include "check.h"
#include "tide_core_config.h"
#include "tide_core_proto.h"

#include <math.h>
#include <string.h>

enum { N = 3, COLLS = 256 };

typedef struct fake {
    tide_proto p[N];
    long own_open[N];
    int posted[N], taken[N];        /* collectives each rank posted and took */
    tide_rank_status res[COLLS][N]; /* every collective's statuses */
    int kind[COLLS];                /* 1 status (2 with start), 3 records, 4 barrier */
    int opens[N], begins[N], rounds[N], finishes[N], begin_null[N], mismatches[N];
    int round_seen[N][COLLS];        /* the collective index of each ROUND a rank ran */
    int records_at[N];               /* the collective index of the records allgather */
    int status_posts_before_done[N]; /* status posts while own work was open (no rounds) */
    /* The strategy's rounds_needed after BEGIN and after a ROUND: 0 the driver's default
     * (tide_proto_round_from), 1 needed, 2 not needed (tide_proto_round_next). */
    int needed_after_begin, needed_after_round;
} fake;

static void next_round(tide_proto *p, double now, int needed)
{
    if (needed)
        tide_proto_round_next(p, now, needed == 1);
    else
        tide_proto_round_from(p, now);
}

static bool done_for(const fake *f, int r)
{
    for (int i = 0; i < N; i++)
        if (f->posted[i] <= f->taken[r]) return false;
    return true;
}

static void post(fake *f, int r, int kind)
{
    int k = f->posted[r]++;
    CHECK(k < COLLS);
    if (f->kind[k]) CHECK(f->kind[k] == kind); /* every rank posts the same collective */
    f->kind[k] = kind;
    if (kind == 4) return;
    if (kind != 3) {
        tide_proto_numbers n = {.queued = (double)f->own_open[r],
                                .outstanding = (double)f->own_open[r],
                                .task_bytes = 100,
                                .threads = 2};
        f->res[k][r] = *tide_proto_status(&f->p[r], &n);
        if (!f->p[r].rounds && f->own_open[r]) f->status_posts_before_done[r]++;
    } else {
        f->records_at[r] = k;
    }
}

/* One turn of rank r's driver at time now. */
static void turn(fake *f, int r, double now)
{
    tide_proto *p = &f->p[r];
    unsigned need = tide_proto_needs(p);
    tide_proto_input in = {0};
    if (need & TIDE_PROTO_NEED_REQUESTED) in.requested = p->nphases + 1;
    if ((need & TIDE_PROTO_NEED_COLL) && done_for(f, r)) {
        in.coll_done = true;
        in.all = f->res[f->taken[r]++];
    }
    if (need & TIDE_PROTO_NEED_OPEN) in.own_open = f->own_open[r];
    if (need & TIDE_PROTO_NEED_NOW) in.now = now;
    tide_proto_action a = tide_proto_step(p, &in);
    if (a.what & TIDE_PROTO_DO_MISMATCH) {
        f->mismatches[r]++;
        return;
    }
    if (a.what & TIDE_PROTO_DO_OPEN) f->opens[r]++;
    if (a.what & TIDE_PROTO_DO_BEGIN) {
        f->begins[r]++;
        f->begin_null[r] += a.all == NULL;
    }
    if (a.what & TIDE_PROTO_DO_ROUND) f->round_seen[r][f->rounds[r]++] = f->taken[r] - 1;
    if (a.what & TIDE_PROTO_DO_BEGIN) next_round(p, now, f->needed_after_begin);
    if (a.what & TIDE_PROTO_DO_ROUND) next_round(p, now, f->needed_after_round);
    if (a.what & TIDE_PROTO_DO_POST_START) post(f, r, 2);
    if (a.what & TIDE_PROTO_DO_POST_STATUS) post(f, r, 1);
    if (a.what & TIDE_PROTO_DO_POST_RECORDS) post(f, r, 3);
    if (a.what & TIDE_PROTO_DO_POST_BARRIER) post(f, r, 4);
    if (a.what & TIDE_PROTO_DO_FINISH) f->finishes[r]++;
}

/* One phase: rank r's own work ends at done_at[r] (seconds); turns every 1 s; returns the time
 * at which the last rank finished. */
static double run_phase(fake *f, const double *done_at, double t0)
{
    long want[N];
    for (int r = 0; r < N; r++)
        want[r] = f->finishes[r] + 1;
    for (double t = t0; t < t0 + 1000; t += 1) {
        bool all = true;
        for (int r = 0; r < N; r++) {
            if (t >= t0 + done_at[r]) f->own_open[r] = 0;
            if (f->finishes[r] < want[r]) turn(f, r, t);
            all &= f->finishes[r] >= want[r];
        }
        if (all) return t;
    }
    CHECK(!"the phase never ended");
    return -1;
}

static void setup(fake *f, unsigned flags, double round_us)
{
    memset(f, 0, sizeof *f);
    for (int r = 0; r < N; r++) {
        tide_proto_init(&f->p[r], N, flags, round_us, NULL, NULL);
        f->own_open[r] = 4;
    }
}

/* Without rounds and start sync (none, or random without its sync): OPEN|BEGIN(NULL), one status
 * allgather each rank joins only when its own work is done, the records, FINISH. */
static void phase_without_rounds(void)
{
    fake f;
    setup(&f, 0, 1e6);
    const double done_at[N] = {2, 7, 30};
    double end = run_phase(&f, done_at, 0);
    CHECK(end >= 30 && end < 33); /* the last rank's work, then two collectives */
    for (int r = 0; r < N; r++) {
        CHECK(f.opens[r] == 1 && f.begins[r] == 1 && f.begin_null[r] == 1);
        CHECK(f.rounds[r] == 0 && f.finishes[r] == 1 && f.mismatches[r] == 0);
        CHECK(f.status_posts_before_done[r] == 0);
        CHECK(f.posted[r] == 2 && f.records_at[r] == 1);
        CHECK(f.p[r].nphases == 1 && tide_proto_idle(&f.p[r]));
    }
    CHECK(f.kind[0] == 1 && f.kind[1] == 3);
    for (int r = 0; r < N; r++) /* the end status: phase 1, no task bytes, nothing open */
        CHECK(f.res[0][r].phase == 1 && f.res[0][r].task_bytes == 0 &&
              f.res[0][r].outstanding == 0 && !tide_proto_step_finalizing(f.res[0][r].phase));
    /* The next phase's statuses say phase 2. */
    for (int r = 0; r < N; r++)
        f.own_open[r] = 1;
    run_phase(&f, done_at, 100);
    CHECK(f.kind[2] == 1 && f.res[2][1].phase == 2 && f.p[0].nphases == 2);
}

/* With the start sync and without rounds (proact): the start status allgather, BEGIN with every
 * rank's statuses, a barrier each rank joins once its own work is done (no end statuses: the
 * start's agreed on the phase), the records, FINISH. */
static void phase_sync_without_rounds(void)
{
    fake f;
    setup(&f, TIDE_LB_PHASE_SYNC, 1e6);
    const double done_at[N] = {3, 9, 20};
    double end = run_phase(&f, done_at, 0);
    CHECK(end >= 20 && end < 24);
    CHECK(f.kind[0] == 2 && f.kind[1] == 4 && f.kind[2] == 3);
    for (int r = 0; r < N; r++) {
        CHECK(f.begins[r] == 1 && f.begin_null[r] == 0 && f.rounds[r] == 0);
        CHECK(f.finishes[r] == 1 && f.mismatches[r] == 0 && f.posted[r] == 3);
        CHECK(f.records_at[r] == 2 && f.p[r].nphases == 1);
    }
    for (int r = 0; r < N; r++)
        f.own_open[r] = 1;
    run_phase(&f, done_at, 100);
    CHECK(f.kind[3] == 2 && f.res[3][2].phase == 2 && f.kind[4] == 4 && f.p[1].nphases == 2);
}

/* With rounds, the start sync and TIDE_LB_ROUNDS_AGREED (proact): a phase whose strategy needs
 * no rounds after BEGIN ends with a barrier (the ranks agreed on it: no rank reads the closing
 * statuses); without the flag, with a status allgather. Once a round was held, a later "not
 * needed" is a rank's own answer: the phase still ends with a status allgather. */
static void phase_rounds_agreed(void)
{
    enum { AGREED = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_ROUNDS_AGREED };
    const double done_at[N] = {3, 25, 20};
    fake f;
    setup(&f, AGREED, 10e6);
    f.needed_after_begin = 2;
    double end = run_phase(&f, done_at, 0);
    CHECK(end >= 25 && end < 29);
    CHECK(f.kind[0] == 2 && f.kind[1] == 4 && f.kind[2] == 3);
    for (int r = 0; r < N; r++)
        CHECK(f.rounds[r] == 0 && f.finishes[r] == 1 && f.posted[r] == 3 && f.p[r].nphases == 1);
    for (int r = 0; r < N; r++) /* the next phase needs rounds: status allgathers again */
        f.own_open[r] = 4;
    f.needed_after_begin = 0;
    run_phase(&f, done_at, 100);
    CHECK(f.kind[3] == 2 && f.kind[4] == 1 && f.rounds[0] >= 1);

    setup(&f, TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS, 10e6); /* not agreed */
    f.needed_after_begin = 2;
    run_phase(&f, done_at, 0);
    CHECK(f.kind[0] == 2 && f.kind[1] == 1 && f.kind[2] == 3);

    setup(&f, AGREED, 10e6); /* a round at 10 s, none needed after it */
    f.needed_after_begin = 1;
    f.needed_after_round = 2;
    run_phase(&f, done_at, 0);
    CHECK(f.kind[0] == 2 && f.kind[1] == 1 && f.kind[2] == 1 && f.kind[3] == 3);
    for (int r = 0; r < N; r++)
        CHECK(f.rounds[r] == 1 && f.finishes[r] == 1 && f.posted[r] == 4);
}

/* With rounds and the start sync (ws, react, rep, proact): the start status carries task bytes,
 * BEGIN gets every rank's statuses, a status allgather every round interval (10 s here) or at
 * once when own work is done, rounds while any rank has work, then the records together. */
static void phase_with_rounds(void)
{
    fake f;
    setup(&f, TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS, 10e6);
    const double done_at[N] = {2, 15, 42};
    double end = run_phase(&f, done_at, 0);
    CHECK(end >= 42 && end < 46);
    CHECK(f.kind[0] == 2);
    for (int r = 0; r < N; r++) {
        CHECK(f.res[0][r].task_bytes == 100 && f.res[0][r].phase == 1 && f.res[0][r].threads == 2);
        CHECK(f.opens[r] == 1 && f.begins[r] == 1 && f.begin_null[r] == 0);
        CHECK(f.finishes[r] == 1 && f.mismatches[r] == 0);
        /* every rank saw the same rounds and gathered the records in the same collective */
        CHECK(f.rounds[r] == f.rounds[0] && f.records_at[r] == f.records_at[0]);
        for (int i = 0; i < f.rounds[r]; i++)
            CHECK(f.round_seen[r][i] == f.round_seen[0][i]);
    }
    /* Rank 2 holds each round back to its interval, counted from its last round: rounds at
     * t = 11, 21, 32 with work open (ROUND), then the status of t = 42 shows none: the records. */
    CHECK(f.rounds[0] == 3 && f.records_at[0] == 5);
    int last = f.records_at[0] - 1; /* the status allgather that ended the phase */
    CHECK(f.kind[last] == 1);
    for (int r = 0; r < N; r++) {
        CHECK(f.res[last][r].outstanding == 0);
        for (int k = 1; k < last; k++)
            CHECK(f.res[k][r].task_bytes == 0);
    }
    bool some_open = false;
    for (int r = 0; r < N; r++)
        some_open |= f.res[last - 1][r].outstanding != 0;
    CHECK(some_open);
}

/* With rounds whose turn the driver names (tide-sim's poll grid): due at turn(next_round). */
static double late_turn(void *ctx, double t)
{
    return t + *(double *)ctx;
}

static void round_due_at_the_turn(void)
{
    tide_proto p;
    double late = 3;
    tide_proto_init(&p, 1, TIDE_LB_ROUNDS, 10e6, late_turn, &late);
    tide_proto_input in = {.requested = 1};
    tide_proto_action a = tide_proto_step(&p, &in);
    CHECK(a.what == (TIDE_PROTO_DO_OPEN | TIDE_PROTO_DO_BEGIN) && a.all == NULL);
    tide_proto_round_from(&p, 5);
    CHECK(tide_proto_needs(&p) == (TIDE_PROTO_NEED_OPEN | TIDE_PROTO_NEED_NOW));
    CHECK(tide_proto_progress(&p) && !tide_proto_posted(&p));
    tide_proto_wait w = tide_proto_wait_for(&p);
    CHECK(!w.posted && w.next == 15);
    in = (tide_proto_input){.own_open = 1, .now = 17};
    CHECK(tide_proto_step(&p, &in).what == 0); /* next_round passed, its turn not yet */
    in.now = 18;
    CHECK(tide_proto_step(&p, &in).what == TIDE_PROTO_DO_POST_STATUS);
    CHECK(tide_proto_posted(&p) && tide_proto_needs(&p) == TIDE_PROTO_NEED_COLL);
    in = (tide_proto_input){0};
    CHECK(tide_proto_step(&p, &in).what == 0); /* not done yet */
    /* Without rounds a RUN waits for own work only: no round time. */
    tide_proto q;
    tide_proto_init(&q, 1, TIDE_LB_PHASE_SYNC, 10e6, NULL, NULL);
    in = (tide_proto_input){.requested = 1};
    CHECK(tide_proto_step(&q, &in).what == (TIDE_PROTO_DO_OPEN | TIDE_PROTO_DO_POST_START));
    CHECK(!tide_proto_progress(&q) && tide_proto_posted(&q)); /* the start sync blocks */
}

/* Rank 2 called tide_taskwait once more: every rank's step sees the mismatch in the same
 * statuses, and the line names it. */
/* A strategy whose round does nothing (rounds_needed false): no timed round, the rank joins a
 * round once its own work is done, however late the clock. */
static void rounds_not_needed(void)
{
    tide_proto p;
    tide_proto_init(&p, 1, TIDE_LB_ROUNDS, 10e6, NULL, NULL);
    tide_proto_input in = {.requested = 1};
    CHECK(tide_proto_step(&p, &in).what == (TIDE_PROTO_DO_OPEN | TIDE_PROTO_DO_BEGIN));
    tide_proto_round_next(&p, 5, false);
    CHECK(isinf(tide_proto_wait_for(&p).next));
    in = (tide_proto_input){.own_open = 1, .now = 1e9};
    CHECK(tide_proto_step(&p, &in).what == 0);
    in.own_open = 0;
    CHECK(tide_proto_step(&p, &in).what == TIDE_PROTO_DO_POST_STATUS);
    /* Needed: due round_s on. */
    tide_proto q;
    tide_proto_init(&q, 1, TIDE_LB_ROUNDS, 10e6, NULL, NULL);
    in = (tide_proto_input){.requested = 1};
    tide_proto_step(&q, &in);
    tide_proto_round_next(&q, 5, true);
    CHECK(tide_proto_wait_for(&q).next == 15);
}

/* Whether the workers wait for the plan: never without one, always for a strategy that plans
 * at phase start without TIDE_LB_START_EARLY. With it: with few tasks per worker the workers wait
 * for a plan that came within 5% of the last phase (and in the first phase), and run while a later
 * one is made; with many tasks per worker they always run. */
static void hold_own(void)
{
    enum { EARLY = TIDE_LB_PHASE_SYNC | TIDE_LB_START_EARLY };
    CHECK(!tide_proto_hold_own(TIDE_LB_ROUNDS, 1, 14, 0, 0));       /* no plan to wait for */
    CHECK(tide_proto_hold_own(TIDE_LB_PHASE_SYNC, 560, 7, 1, 0.1)); /* always waits for it */
    CHECK(tide_proto_hold_own(EARLY, 32, 14, 0, 0));
    CHECK(tide_proto_hold_own(EARLY, 32, 14, 0.004, 0.1));
    CHECK(tide_proto_hold_own(EARLY, 32, 14, 0.005, 0.1));
    CHECK(!tide_proto_hold_own(EARLY, 32, 14, 0.0051, 0.1));
    CHECK(!tide_proto_hold_own(EARLY, 32, 14, 0.0049, 0.01)); /* 1 GbE, 256 ranks: 4.9 ms of 10 */
    CHECK(tide_proto_hold_own(EARLY, 55, 14, 0.001, 1));
    CHECK(!tide_proto_hold_own(EARLY, 56, 14, 0.001, 1));
    CHECK(!tide_proto_hold_own(EARLY, 560, 7, 0, 0)); /* MxM's rank 0 */
}

static void mismatch(void)
{
    fake f;
    setup(&f, TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS, 10e6);
    f.p[2].nphases = 1; /* rank 2 is a phase ahead */
    for (double t = 0; t < 5; t++)
        for (int r = 0; r < N; r++)
            turn(&f, r, t);
    for (int r = 0; r < N; r++)
        CHECK(f.mismatches[r] == 1 && f.begins[r] == 0);
    char line[256];
    tide_proto_mismatch_line(f.res[0], N, line, sizeof line);
    CHECK(strcmp(line, "rank 2 is in phase 2, the others in phase 1") == 0);
    CHECK(!tide_proto_steps_agree(f.res[0], N));
    tide_rank_status fin[N] = {
        {.phase = 1}, {.phase = tide_proto_finalizing_step(1)}, {.phase = 2}};
    tide_proto_mismatch_line(fin, N, line, sizeof line);
    CHECK(strcmp(line, "rank 1 is in tide_finalize after 1 phases, rank 2 is in phase 2, rank 0 in "
                       "phase 1") == 0);
    tide_rank_status same[N] = {{.phase = 3}, {.phase = 3}, {.phase = 3}};
    CHECK(tide_proto_steps_agree(same, N));
}

/* ---- the plan gate ----------------------------------------------------------------------------
 */

/* One phase through the gate, as it ran (idle or not): time + tail = own + score, tail of its
 * kind as given, workers busy for the heaviest rank's own load. Returns idle_next. */
static bool gate_phase_tail(tide_plan_gate *g, double score, double own, double mean, double tail)
{
    tide_gate_phase ph = {.idle = g->idle_next,
                          .predicted = true,
                          .time = own + score - tail,
                          .tail = tail,
                          .own = own,
                          .mean = mean,
                          .busy = own};
    tide_plan_gate_end(g, &ph);
    return g->idle_next;
}

static bool gate_phase(tide_plan_gate *g, double score, double own, double mean)
{
    return gate_phase_tail(g, score, own, mean, 0);
}

/* A fresh gate after one protocol phase of microseconds (Task Bench's `trivial` on 2 ranks: the
 * phase 17 us, its workers busy 0.5 us, an imbalance own - mean): idle at once, its protocol
 * alone above any imbalance. */
static void gate_idle_after_fine(tide_plan_gate *g, bool plans, double own, double mean)
{
    tide_plan_gate_init(g, true, false, plans);
    tide_gate_phase fine = {
        .idle = false, .predicted = false, .time = 17e-6, .own = own, .mean = mean, .busy = 0.5e-6};
    tide_plan_gate_end(g, &fine);
    CHECK(g->idle && g->idle_next);
}

/* Plans that cost more than they gain (1 GbE, 512 ranks: score 1.9 against an idle phase's 1.0):
 * two plan samples (phases 0 and 1), an idle block of three phases (the first follows a plan:
 * not a sample), then idle phases; a probe only once the imbalance (own - mean) has grown
 * 1.5-fold, two protocol phases long (the first follows idle ones: not a sample); a probe that
 * wins brings the protocol back. */
static void gate_plans_lose(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    CHECK(!g.idle_next);
    int idle = 0;
    for (int phase = 0; phase < 30; phase++) { /* 25 idle phases after the block: no probe due */
        bool was = g.idle_next;
        idle += was;
        gate_phase(&g, was ? 1.0 : 1.9, 4.0, 1.3);
        CHECK(g.idle_next == (phase >= 1));
        CHECK(g.idle == (phase >= 4));
    }
    CHECK(idle == 28);                     /* all but the two plan samples */
    CHECK(gate_phase(&g, 1.0, 5.0, 1.3));  /* 3.7 < 1.5 x 2.7: still idle */
    CHECK(!gate_phase(&g, 1.0, 5.5, 1.3)); /* 4.2 >= 4.05: a probe */
    CHECK(!gate_phase(&g, 0.2, 5.5, 1.3)); /* after idle phases: not a sample, the probe goes on */
    CHECK(gate_phase(&g, 1.5, 5.5, 1.3));  /* it lost (1.5 > 1.0): idle again */
    CHECK(gate_phase(&g, 1.0, 5.5, 1.3));  /* the same imbalance: no second probe */
    CHECK(!gate_phase(&g, 1.0, 8.0, 1.3)); /* grown again: a probe */
    CHECK(!gate_phase(&g, 2.0, 8.0, 1.3));
    CHECK(!gate_phase(&g, 0.5, 8.0, 1.3)); /* it won: protocol phases */
    CHECK(!g.idle);
}

/* A probe falls due after TIDE_GATE_EXPLORE idle phases even where the imbalance stays as it was
 * (a strategy sent idle by protocol phases that the machine slowed: samoa_proxy under react,
 * two phases of 34.8 ms among ones of 28 ms); each probe that loses doubles the wait, one that
 * wins brings the protocol back, and no probe is due below the protocol alone. */
static void gate_probe_due(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    for (int phase = 0; phase < 5; phase++) /* two plan samples, an idle block: idle */
        gate_phase(&g, g.idle_next ? 1.0 : 1.9, 4.0, 1.3);
    CHECK(g.idle && g.idle_next);
    for (int wait = TIDE_GATE_EXPLORE; wait <= 4 * TIDE_GATE_EXPLORE; wait *= 2) {
        for (int k = 1; k < wait; k++)
            CHECK(gate_phase(&g, 1.0, 4.0, 1.3));
        CHECK(!gate_phase(&g, 1.0, 4.0, 1.3)); /* due: a probe */
        CHECK(!gate_phase(&g, 1.9, 4.0, 1.3)); /* after idle phases: not a sample */
        CHECK(gate_phase(&g, 1.9, 4.0, 1.3));  /* it lost: idle, the wait doubles */
        CHECK(g.probe_every == 2 * wait);
    }
    for (int k = 1; k < 8 * TIDE_GATE_EXPLORE; k++)
        CHECK(gate_phase(&g, 1.0, 4.0, 1.3));
    CHECK(!gate_phase(&g, 1.0, 4.0, 1.3));
    CHECK(!gate_phase(&g, 0.5, 4.0, 1.3));
    CHECK(!gate_phase(&g, 0.5, 4.0, 1.3)); /* it won: the protocol, the wait back to its start */
    CHECK(!g.idle && g.probe_every == TIDE_GATE_EXPLORE);
    /* the wait never exceeds TIDE_GATE_PROBE_MAX */
    g.idle = g.idle_next = true, g.probe_every = TIDE_GATE_PROBE_MAX, g.idle_run = 0;
    g.last_idle = true;
    for (int k = 1; k < TIDE_GATE_PROBE_MAX; k++)
        CHECK(gate_phase(&g, 1.0, 4.0, 1.3));
    CHECK(!gate_phase(&g, 1.0, 4.0, 1.3));
    CHECK(!gate_phase(&g, 1.9, 4.0, 1.3));
    CHECK(gate_phase(&g, 1.9, 4.0, 1.3) && g.probe_every == TIDE_GATE_PROBE_MAX);
    /* below the protocol alone nothing falls due: Task Bench's noise (gate_probe_noise) */
    gate_idle_after_fine(&g, false, 0.5e-6, 0.4e-6);
    for (int k = 0; k < 4 * TIDE_GATE_PROBE_MAX; k++)
        CHECK(gate_phase(&g, 0.4e-6, 0.5e-6 + 1e-6 * (k % 7), 0.4e-6));
}

/* A protocol phase whose protocol alone cost more than the imbalance a plan could remove
 * (tide-sim, 1024 ranks on 1 GbE: the first phase took 6.27 ms, its workers 2.56, against an
 * imbalance of 2.18 - 0.50): idle at once, no plan samples; a probe later only once the
 * imbalance has grown 1.5-fold. Where the protocol cost less (512 ranks: 6.38 against workers'
 * 4.53 and an imbalance of 4.04 - 0.99), the gate samples plans as before. */
static void gate_protocol_hopeless(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    tide_gate_phase first = {
        .idle = false, .predicted = false, .time = 6.27, .own = 2.18, .mean = 0.50, .busy = 2.56};
    tide_plan_gate_end(&g, &first);
    CHECK(g.idle && g.idle_next);
    for (int p = 0; p < 10; p++) /* idle phases of none's time: no probe */
        CHECK(gate_phase(&g, 0.5, 2.18, 0.50));
    /* 3.0 >= 1.5 x 1.68, but below the protocol alone (6.27 - 2.56 = 3.71): no plan could win */
    CHECK(gate_phase(&g, 0.5, 3.5, 0.50));
    CHECK(!gate_phase(&g, 0.5, 4.5, 0.50)); /* 4.0 above both: a probe */

    tide_plan_gate_init(&g, true, false, true);
    tide_gate_phase wide = {
        .idle = false, .predicted = false, .time = 6.38, .own = 4.04, .mean = 0.99, .busy = 4.53};
    tide_plan_gate_end(&g, &wide);
    CHECK(!g.idle && !g.idle_next);
    /* the same first phase whose workers were busy as long as the heaviest own load: its
     * protocol (6.38 - 4.04 = 2.34) still below the imbalance (3.05) */
    wide.busy = wide.own;
    tide_plan_gate_init(&g, true, false, true);
    tide_plan_gate_end(&g, &wide);
    CHECK(!g.idle_next);
}

/* Phases of microseconds (Task Bench's `trivial` on 2 ranks: equal loads; a protocol phase 17 us,
 * an idle one 0.8): the first protocol phase sends the gate idle at an imbalance of 0, so every
 * imbalance of noise after it has grown more than 1.5-fold; none starts a probe while it stays
 * below the protocol alone (17 - 0.5 = 16.5 us), one above it does. */
static void gate_probe_noise(void)
{
    tide_plan_gate g;
    gate_idle_after_fine(&g, true, 0.4e-6, 0.4e-6);
    double noise[] = {1e-9, 2e-9, 5e-9, 50e-9, 0.3e-6, 2e-6, 9e-6, 16e-6};
    /* every one above 1.5x the imbalance when it went idle (0) */
    for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++)
        CHECK(gate_phase(&g, 0.4e-6, 0.4e-6 + noise[k], 0.4e-6));
    CHECK(!gate_phase(&g, 0.4e-6, 0.4e-6 + 25e-6, 0.4e-6)); /* above 16.5 us: a probe */
}

/* A reactive strategy (react, ws, rep: no TIDE_LB_PLANS) has no predictions: every settled
 * protocol phase is a sample. Fine phases (Task Bench on 2 ranks: a protocol phase 17 us against
 * an imbalance of 0.1 us) go idle at once; a probe ends after one settled protocol phase; where
 * its phases lose to idle ones it stays idle, where they beat the heaviest rank's own load it
 * never idles. A planning gate fed the same phases without predictions would never end its
 * probe (the phases after it: protocol). */
static void gate_reactive(void)
{
    tide_plan_gate g;
    gate_idle_after_fine(&g, false, 0.5e-6, 0.4e-6);
    for (int p = 0; p < 5; p++)
        CHECK(gate_phase(&g, 0.4e-6, 0.5e-6, 0.4e-6));
    /* an imbalance of 40 us, above the 16.5 us protocol: a probe; the first protocol phase
     * follows idle ones (not a sample), the second is one: it lost (30 us against 0.4), idle */
    CHECK(!gate_phase(&g, 0.4e-6, 40.4e-6, 0.4e-6));
    tide_gate_phase probe = {.idle = false,
                             .predicted = false,
                             .time = 70e-6,
                             .own = 40.4e-6,
                             .mean = 0.4e-6,
                             .busy = 40e-6};
    tide_plan_gate_end(&g, &probe);
    CHECK(!g.idle_next);
    probe.time = 70.4e-6;
    tide_plan_gate_end(&g, &probe);
    CHECK(g.idle && g.idle_next);

    /* the same probe under a planning gate: no prediction, no sample, protocol phases go on */
    tide_plan_gate planning;
    gate_idle_after_fine(&planning, true, 0.5e-6, 0.4e-6);
    CHECK(!gate_phase(&planning, 0.4e-6, 40.4e-6, 0.4e-6));
    for (int p = 0; p < 3; p++) {
        tide_plan_gate_end(&planning, &probe);
        CHECK(!planning.idle_next);
    }

    /* coarse imbalanced phases that react balances (the MxM: 1.07 s against own 4.0): never idle */
    tide_plan_gate_init(&g, true, false, false);
    tide_gate_phase mxm = {
        .idle = false, .predicted = false, .time = 1.07, .own = 4.0, .mean = 1.0, .busy = 1.05};
    for (int p = 0; p < 100; p++) {
        tide_plan_gate_end(&g, &mxm);
        CHECK(!g.idle_next);
    }
}

/* Plans that beat the bound no phase without them can (score < 0: faster than the heaviest
 * rank's own load per worker, the paper's MxM) take no idle phase, ever; nor do plans that
 * waste less than TIDE_GATE_WASTE of the imbalance (own - mean = 3 here: scores up to 0.9). */
static void gate_plans_win_surely(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    for (int p = 0; p < 100; p++)
        CHECK(!gate_phase(&g, p == 50 ? 1.2 : p > 80 ? 0.5 : -2.9, 4.0, 1.0)); /* one slow */
    CHECK(!gate_phase(&g, 1.2, 4.0, 1.0)); /* the one before was promising (0.5 < 0.9) */
    CHECK(gate_phase(&g, 1.3, 4.0, 1.0));  /* two slow ones in a row: an idle block */
}

/* Plans that win by less than that (score 2.0 against idle 2.4, wasting 0.38 of the imbalance
 * of 5.2): two plan samples,
 * an idle block of three, then protocol phases with another idle block after every
 * TIDE_GATE_EXPLORE of them. */
static void gate_plans_win(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    int idle = 0;
    for (int p = 0; p < 5 + 2 * (TIDE_GATE_EXPLORE + 3); p++) {
        bool was = g.idle_next;
        idle += was;
        gate_phase(&g, was ? 2.4 : 2.0, 7.4, 2.2);
    }
    CHECK(!g.idle && !g.idle_next && idle == 3 * 3);
}

/* A phase is judged by its time as the application sees it, what follows the records included
 * (tide-sim, 256 ranks on 1 GbE: 0.65 ms after a plan's, 0.42 after an idle phase's): plans
 * ahead until their records (0.8 against idle phases' 1.1, and promising: below 0.3 x 2.7) but
 * behind by the end (1.5 against 1.3) take an idle block and lose to it. */
static void gate_tail_counts(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    int idle = 0;
    for (int p = 0; p < 12; p++) {
        bool was = g.idle_next;
        idle += was;
        gate_phase_tail(&g, was ? 1.3 : 1.5, 4.0, 1.3, was ? 0.2 : 0.7);
    }
    CHECK(g.idle && idle == 10);
}

/* The same, with the tail kept by the gate as a driver keeps it (one rank): each phase's sums
 * carry the tail of the last phase of its kind (0 before the first), and the phase ends its tail
 * after its record. Plans recorded at 0.8 past the own load and ended 0.7 later, idle phases at
 * 1.1 and 0.2: phase 0 scores 0.8 (no tail yet), then plans 1.5, the idle block's first phase
 * (not a sample) 1.1, then 1.3: idle from phase 3 on. Without the tail, plans at 0.8 stay
 * promising (below 0.3 x 2.7) and the gate never goes idle. */
static void gate_tail_kept(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, true, false, true);
    CHECK(tide_plan_gate_tail(&g, false) == 0 && tide_plan_gate_tail(&g, true) == 0);
    int idle = 0;
    for (int p = 0; p < 12; p++) {
        bool was = g.idle_next;
        idle += was;
        double record = 4.0 + (was ? 1.1 : 0.8);
        tide_gate_phase ph = {.idle = was,
                              .predicted = true,
                              .time = record,
                              .tail = tide_plan_gate_tail(&g, was),
                              .own = 4.0,
                              .mean = 1.3,
                              .busy = 4.0};
        tide_plan_gate_end(&g, &ph);
        tide_plan_gate_ended(&g, was, record + (was ? 0.2 : 0.7));
        CHECK(fabs(tide_plan_gate_tail(&g, was) - (was ? 0.2 : 0.7)) < 1e-12);
    }
    CHECK(g.idle && idle == 9);
    /* Off: nothing kept. */
    tide_plan_gate_init(&g, false, false, true);
    tide_plan_gate_ended(&g, false, 3.0);
    CHECK(tide_plan_gate_tail(&g, false) == 0);
}

/* Off (another strategy, TIDE_PLAN_GATE=off): never idle; alternate: every other phase. */
static void gate_off_and_alternate(void)
{
    tide_plan_gate g;
    tide_plan_gate_init(&g, false, true, true);
    for (int p = 0; p < 10; p++)
        CHECK(!gate_phase(&g, 5, 1, 0));
    /* Gated: the strategies whose protocol pays only through the phase's time (TIDE_LB_GATED:
     * proact and the reactive ones), not random (its moves are the point), planning or not. */
    CHECK(tide_plan_gate_wanted(TIDE_LB_PLANS | TIDE_LB_GATED | TIDE_LB_PHASE_SYNC,
                                TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_AUTO, 2));
    CHECK(tide_plan_gate_wanted(TIDE_LB_GATED | TIDE_LB_ROUNDS, TIDE_PHASE_DRIVER_AUTO,
                                TIDE_PLAN_GATE_AUTO, 2));
    CHECK(
        !tide_plan_gate_wanted(TIDE_LB_PHASE_SYNC, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_AUTO, 2));
    CHECK(!tide_plan_gate_wanted(TIDE_LB_PLANS, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_AUTO, 2));
    CHECK(!tide_plan_gate_wanted(TIDE_LB_GATED, TIDE_PHASE_DRIVER_COMM, TIDE_PLAN_GATE_AUTO, 2));
    CHECK(!tide_plan_gate_wanted(TIDE_LB_GATED, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_OFF, 2));
    CHECK(!tide_plan_gate_wanted(TIDE_LB_GATED, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_AUTO, 1));
    /* Inline phases: a strategy that never acts, or one rank, unless the comm thread is asked. */
    const tide_lb_ops quiet = {.name = "quiet"}, acts = {.name = "acts", .flags = TIDE_LB_PLANS};
    CHECK(tide_proto_inline_phases(&quiet, TIDE_PHASE_DRIVER_AUTO, 4));
    CHECK(!tide_proto_inline_phases(&acts, TIDE_PHASE_DRIVER_AUTO, 2));
    CHECK(tide_proto_inline_phases(&acts, TIDE_PHASE_DRIVER_AUTO, 1));
    CHECK(!tide_proto_inline_phases(&acts, TIDE_PHASE_DRIVER_COMM, 1));
    CHECK(!tide_proto_inline_phases(&quiet, TIDE_PHASE_DRIVER_COMM, 4));
    tide_plan_gate_init(&g, true, true, true);
    for (int p = 0; p < 10; p++)
        CHECK(gate_phase(&g, -5, 1, 0) == (p % 2 == 0));
    /* A driver's gate (libtide's and tide-sim's): from the strategy's flags and the config. */
    tide_plan_gate_setup(&g, TIDE_LB_GATED | TIDE_LB_PLANS, TIDE_PHASE_DRIVER_AUTO,
                         TIDE_PLAN_GATE_AUTO, 4);
    CHECK(g.on && g.plans && !g.alternate && !g.idle_next);
    tide_plan_gate_setup(&g, TIDE_LB_GATED, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_ALTERNATE, 4);
    CHECK(g.on && !g.plans && g.alternate);
    tide_plan_gate_setup(&g, TIDE_LB_GATED, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_OFF, 4);
    CHECK(!g.on && !g.alternate);
    tide_plan_gate_setup(&g, TIDE_LB_PHASE_SYNC, TIDE_PHASE_DRIVER_AUTO, TIDE_PLAN_GATE_ALTERNATE,
                         4);
    CHECK(!g.on && !g.alternate);
}

int main(void)
{
    gate_plans_lose();
    gate_protocol_hopeless();
    gate_probe_noise();
    gate_reactive();
    gate_probe_due();
    gate_plans_win_surely();
    gate_tail_counts();
    gate_tail_kept();
    gate_plans_win();
    gate_off_and_alternate();
    rounds_not_needed();
    hold_own();
    phase_without_rounds();
    phase_sync_without_rounds();
    phase_with_rounds();
    phase_rounds_agreed();
    round_due_at_the_turn();
    mismatch();
    return CHECK_REPORT("test_proto");
}
