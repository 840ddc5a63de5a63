/* `proact` on four ranks at once, one thread each, whose allgatherv meets as MPI's does, when
 * only some ranks have per-task predictions.
 * 1. Rank 0 knows its tasks (four of 10 s and four of 1 s), rank 1 predicts only its total
 *    (40 s over 8 tasks, no task model fit), ranks 2 and 3 are idle. One rank without per-task
 *    weights must not turn the plan uniform (which would ship rank 0's tasks from the back of
 *    its queue, its light ones): the plan is weighted, rank 0 sends its heavy tasks, rank 1
 *    counts its tasks at their average weight and sends some, and the predicted maximum falls
 *    from 44 s to within a heavy task of the mean (21 s).
 * 2. The same, but rank 1's own guess is 8 s (its region was light until now) while its tasks'
 *    features say otherwise, and the drivers pool task models: ranks 0, 2 and 3 have fits
 *    (time = 1, 1.1 and 100 x the feature); rank 1 weighs its tasks with each and adopts the
 *    median (rank 2's: 48.4 s), so it sends its heavy tasks instead of receiving rank 0's.
 *    Also when rank 1's own guess was made after a suspect load (L_suspect): the adopted load
 *    weighs the phase's tasks, and the suspect no longer widens its margin. But when rank 1
 *    finds no vector it can use (every adoption refused), it plans with its own guess (0 s), and
 *    a suspect 40 s away keeps the room that guess leaves empty: it receives none of rank 0's
 *    tasks (and some without the suspect).
 *    In 1, with two light tasks on ranks 2 and 3, only the ranks above the average load (the
 *    only ones that can send) contribute their tasks' weights to the plan's allgatherv.
 * 3. Over four phases on one state: a weighted plan that came 30 s into a phase predicted at
 *    44 s (later than half of it) is followed by uniform plans, made from the status alone
 *    (no allgatherv), still when the phase is predicted at 100 s, and by a weighted plan again
 *    once it is predicted at 200 s. Before any weighted plan, its cost is estimated from the
 *    last phase without a plan: its status took 2 s, weighted; 3 s, uniform. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include "check.h"
#include "tide_lb.h"

#include <pthread.h>
#include <string.h>

#define NP 4
#define NT 8

static const double weights0[NT] = {10, 10, 10, 10, 1, 1, 1, 1};
static const double feat1[NT] = {10, 10, 10, 10, 1, 1, 1, 1}; /* rank 1's tasks' feature */
static const double slope[NP] = {1, 0, 1.1, 100};             /* the fitted ranks' models */
static bool pooling;                                          /* scenario 2 */
static int light_tasks; /* tasks of ranks 2 and 3 (0: they are idle) */
static double suspect1; /* rank 1's L_suspect */
static bool refuse;     /* rank 1 can use no pooled vector */

typedef struct rank_ctx {
    int id;
    int32_t dest[NT];
    long selected;     /* offload_selected calls */
    int offloads;      /* offload calls (the uniform plan's) */
    bool weighed;      /* task_times was asked */
    double adopted[2]; /* the coefficients rank 1 adopted last ({0, 0}: none) */
    int gathers;       /* allgatherv calls */
    int counts[NP];    /* those of the last allgatherv */
    double *slot;      /* the allgatherv meeting point */
    pthread_barrier_t *bar;
} rank_ctx;

static int mx_offload(void *ctx, int dest, int n)
{
    (void)dest;
    ((rank_ctx *)ctx)->offloads++;
    return n;
}

static int mx_offload_selected(void *ctx, const int32_t *dest, long n)
{
    rank_ctx *r = ctx;
    r->selected++;
    int moved = 0;
    for (long k = 0; k < n && k < NT; k++) {
        r->dest[k] = dest[k];
        moved += dest[k] != r->id;
    }
    return moved;
}

static void mx_allgatherv(void *ctx, const double *mine, int n, const int *counts, double *out)
{
    rank_ctx *r = ctx;
    int at = 0, total = 0;
    r->gathers++;
    for (int i = 0; i < NP; i++) {
        if (i == r->id) at = total;
        total += counts[i];
        r->counts[i] = counts[i];
    }
    pthread_barrier_wait(r->bar);
    memcpy(r->slot + at, mine, sizeof(double) * (size_t)n);
    pthread_barrier_wait(r->bar);
    memcpy(out, r->slot, sizeof(double) * (size_t)total);
    pthread_barrier_wait(r->bar);
}

static bool mx_task_times(void *ctx, double *times, long n)
{
    rank_ctx *r = ctx;
    r->weighed = true;
    if (r->id == 1 && r->adopted[1] > 0) {
        for (long k = 0; k < n && k < NT; k++)
            times[k] = r->adopted[0] + r->adopted[1] * feat1[k];
        return n == NT;
    }
    if (r->id != 0) return false;
    for (long k = 0; k < n && k < NT; k++)
        times[k] = weights0[k];
    return n == NT;
}

static int mx_task_coef(void *ctx, double *out, int max)
{
    rank_ctx *r = ctx;
    if (r->id == 1 || max < 2) return 0;
    out[0] = 0, out[1] = slope[r->id];
    return 2;
}

static bool mx_adopt(void *ctx, const double *coef, int n, double *load)
{
    rank_ctx *r = ctx;
    if (r->id != 1 || n != 2 || refuse) return false;
    r->adopted[0] = coef[0], r->adopted[1] = coef[1];
    *load = 0;
    for (int k = 0; k < NT; k++)
        *load += coef[0] + coef[1] * feat1[k];
    return true;
}

static void mx_fatal(void *ctx, const char *msg)
{
    fprintf(stderr, "rank %d: fatal: %s\n", ((rank_ctx *)ctx)->id, msg);
    check_failures++;
}

static int mx_reclaim(void *ctx, int n)
{
    (void)ctx, (void)n;
    return 0;
}

static tide_rank_status all[NP];
static char states[NP][64]; /* each rank's strategy state, kept from one run to the next */

static void *run_rank(void *arg)
{
    rank_ctx *r = arg;
    const tide_lb_ops *proact = tide_lb_ops_find("proact");
    double knob[8];
    for (size_t k = 0; k < tide_lb_knob_count(proact) && k < 8; k++)
        knob[k] = proact->knobs[k]->def;
    uint64_t rng = 1;
    tide_lb_view v = {.rank = r->id,
                      .size = NP,
                      .running = true,
                      .queued = (long)all[r->id].queued,
                      .phase_tasks = (long)all[r->id].ntasks,
                      .threads = 1,
                      .all = all,
                      .knob = knob,
                      .state = states[r->id],
                      .rng = &rng};
    tide_lb_actions a = {.ctx = r,
                         .offload = mx_offload,
                         .offload_selected = mx_offload_selected,
                         .replicate = mx_offload,
                         .allgatherv = mx_allgatherv,
                         .task_times = mx_task_times,
                         .fatal = mx_fatal,
                         .reclaim = mx_reclaim,
                         .task_coef = pooling ? mx_task_coef : NULL,
                         .adopt_task_coef = pooling ? mx_adopt : NULL};
    proact->phase_begin(&v, &a);
    return NULL;
}

/* Runs the four ranks' phase_begin, each rank's last one returned plan_at seconds into its
 * phase; r[] holds what each did. */
static void run_at(const double *load, double plan_at, rank_ctx *r)
{
    for (int i = 0; i < NP; i++)
        all[i] = (tide_rank_status){.ntasks = i < 2 ? NT : light_tasks,
                                    .L_pred = load[i],
                                    .queued = i < 2 ? NT : light_tasks,
                                    .outstanding = i < 2 ? NT : light_tasks,
                                    .task_pred = pooling ? i != 1 : i == 0,
                                    .L_suspect = i == 1 ? suspect1 : 0,
                                    .threads = 1,
                                    .plan_at = plan_at};
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, NP);
    double slot[NP * NT];
    pthread_t t[NP];
    for (int i = 0; i < NP; i++) {
        r[i] = (rank_ctx){.id = i, .slot = slot, .bar = &bar};
        for (int k = 0; k < NT; k++)
            r[i].dest[k] = i;
        pthread_create(&t[i], NULL, run_rank, &r[i]);
    }
    for (int i = 0; i < NP; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
}

/* A first phase_begin of a fresh run on every rank. */
static void run(const double *load, rank_ctx *r)
{
    memset(states, 0, sizeof states);
    run_at(load, 0, r);
}

/* The weights' allgatherv (the last one) carried the tasks of ranks 0 and 1 only. */
static void check_senders_only(const rank_ctx *r)
{
    for (int i = 0; i < NP; i++) {
        CHECK(r[i].counts[0] == NT && r[i].counts[1] == NT);
        CHECK(r[i].counts[2] == 0 && r[i].counts[3] == 0);
    }
}

static void weighted_with_one_unweighted_rank(void)
{
    double load[NP] = {44, 40, 0, 0};
    rank_ctx r[NP];
    pooling = false;
    light_tasks = 0;
    run(load, r);

    /* The plan is weighted on every rank: tasks chosen by position, none by count. */
    for (int i = 0; i < NP; i++) {
        CHECK(r[i].weighed);
        CHECK(r[i].selected == 1);
        CHECK(r[i].offloads == 0);
    }
    /* Predicted loads after the plan: rank 0's moved tasks weigh what its model says, rank 1's
     * their average (40 / 8). */
    double after[NP] = {0};
    int heavy_moved = 0, light_moved = 0, moved1 = 0;
    for (int k = 0; k < NT; k++) {
        after[r[0].dest[k]] += weights0[k];
        if (r[0].dest[k] != 0) weights0[k] > 1 ? heavy_moved++ : light_moved++;
        after[r[1].dest[k]] += load[1] / NT;
        moved1 += r[1].dest[k] != 1;
    }
    double max_after = 0;
    for (int i = 0; i < NP; i++)
        max_after = after[i] > max_after ? after[i] : max_after;
    printf("moved: rank 0 %d heavy + %d light, rank 1 %d; loads after %.0f %.0f %.0f %.0f\n",
           heavy_moved, light_moved, moved1, after[0], after[1], after[2], after[3]);
    CHECK(heavy_moved >= 2);     /* rank 0's surplus (23 s) leaves as heavy tasks */
    CHECK(moved1 >= 3);          /* rank 1's surplus (19 s) leaves at 5 s a task */
    CHECK(max_after <= 21 + 10); /* within a heavy task of the mean, from 44 */
    CHECK(after[2] > 0 && after[3] > 0);

    /* The same with two tasks (1 s each) on ranks 2 and 3: only ranks 0 and 1 send weights. */
    double light[NP] = {44, 40, 2, 2};
    light_tasks = 2;
    run(light, r);
    light_tasks = 0;
    check_senders_only(r);
}

static void pooled_task_models(double suspect)
{
    double load[NP] = {44, 8, 0, 0};
    rank_ctx r[NP];
    pooling = true;
    suspect1 = suspect;
    run(load, r);
    suspect1 = 0;
    printf("rank 1 adopted %g + %g x feature\n", r[1].adopted[0], r[1].adopted[1]);
    CHECK(r[1].adopted[0] == 0 && r[1].adopted[1] == 1.1); /* the median of 44, 48.4, 4400 */
    int heavy1 = 0, to1 = 0;
    double after[NP] = {0};
    for (int k = 0; k < NT; k++) {
        heavy1 += r[1].dest[k] != 1 && feat1[k] > 1;
        to1 += r[0].dest[k] == 1;
        after[r[0].dest[k]] += weights0[k];
        after[r[1].dest[k]] += 1.1 * feat1[k];
    }
    printf("rank 1 sends %d heavy tasks, receives %d; loads after %.1f %.1f %.1f %.1f\n", heavy1,
           to1, after[0], after[1], after[2], after[3]);
    CHECK(heavy1 >= 2); /* its 48.4 s are above the mean (23.1 s) */
    CHECK(to1 == 0);    /* not the light rank its own guess said */
    for (int i = 0; i < NP; i++)
        CHECK(after[i] <= 23.1 + 11);
}

/* Pooling takes place, but rank 1 adopts nothing: its load is its own guess (0 s, a victim's),
 * and a suspect of 40 s widens its margin as for any rank planning with its own guess. Returns
 * how many of rank 0's tasks rank 1 receives. */
static int pooled_refused(double suspect)
{
    double load[NP] = {44, 0, 0, 0};
    rank_ctx r[NP];
    pooling = refuse = true;
    suspect1 = suspect;
    run(load, r);
    suspect1 = 0;
    refuse = false;
    int to1 = 0, moved0 = 0;
    for (int k = 0; k < NT; k++) {
        to1 += r[0].dest[k] == 1;
        moved0 += r[0].dest[k] != 0;
        CHECK(r[1].dest[k] == 1); /* below the mean: it sends nothing */
    }
    CHECK(r[1].adopted[1] == 0);
    CHECK(moved0 >= 2); /* the plan still works: rank 0 sends to ranks 2 and 3 */
    printf("no adoption, L_suspect %g: rank 1 receives %d of rank 0's tasks (%d moved)\n", suspect,
           to1, moved0);
    return to1;
}

/* Whether every rank made a weighted plan (true) or a uniform one (false); fails on a mix. */
static bool weighted_on_all(const rank_ctx *r)
{
    int weighted = 0, uniform = 0;
    for (int i = 0; i < NP; i++) {
        if (r[i].gathers > 0 && r[i].selected == 1) weighted++;
        if (r[i].gathers == 0 && r[i].selected == 0) uniform++;
    }
    CHECK(weighted == NP || uniform == NP);
    return weighted == NP;
}

static void late_weighted_plan_turns_uniform(void)
{
    rank_ctx r[NP];
    pooling = false;
    double load44[NP] = {44, 40, 0, 0}, load100[NP] = {100, 90, 0, 0};
    double load200[NP] = {200, 180, 0, 0};
    run(load44, r); /* the first plan: weighted, whenever the phase before began */
    bool first = weighted_on_all(r);
    run_at(load44, 30, r); /* that plan came at 30 s of a 44 s phase */
    bool late = weighted_on_all(r);
    int offloads = r[0].offloads + r[1].offloads;
    run_at(load100, 0.5, r); /* a uniform plan took 0.5 s; 30 s > 100 s / 4 */
    bool longer = weighted_on_all(r);
    run_at(load200, 0.5, r); /* 30 s <= 200 s / 4 */
    bool back = weighted_on_all(r);
    printf("weighted plans: %d, after a late one %d (%d uniform sends), at 100 s %d, at 200 s %d\n",
           first, late, offloads, longer, back);
    CHECK(first && !late && !longer && back);
    CHECK(offloads > 0); /* the uniform plan moved tasks */
}

/* Before any weighted plan was made, its cost is estimated at 5 times what the last phase
 * without a plan took (its status: plan_at). Coming from such a phase the weighted plan needs a
 * predicted phase four times that long (the hysteresis of a change of kind): 44 s here. */
static void first_weighted_plan_estimated(void)
{
    rank_ctx r[NP];
    pooling = false;
    double load44[NP] = {44, 40, 0, 0};
    memset(states, 0, sizeof states);
    run_at(load44, 2, r); /* 5 x 2 s = 10 s <= 44 s / 4 */
    bool cheap = weighted_on_all(r);
    memset(states, 0, sizeof states);
    run_at(load44, 3, r); /* 15 s > 11 s */
    bool dear = weighted_on_all(r);
    int offloads = r[0].offloads + r[1].offloads;
    printf(
        "first plan after a status of 2 s: weighted %d; of 3 s: weighted %d (%d uniform sends)\n",
        cheap, dear, offloads);
    CHECK(cheap && !dear);
    CHECK(offloads > 0);
}

int main(void)
{
    weighted_with_one_unweighted_rank();
    pooled_task_models(0);
    /* Rank 1's own guess came with a suspect last load 40 s away: its margin would keep its
     * whole surplus (25 s) if it counted, but the load it plans with is the pooled model's. */
    pooled_task_models(40);
    CHECK(pooled_refused(0) > 0);
    CHECK(pooled_refused(40) == 0);
    late_weighted_plan_turns_uniform();
    first_weighted_plan_estimated();
    return CHECK_REPORT("task_test_lb_proact_mixed");
}
