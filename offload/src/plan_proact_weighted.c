/*
 * plan_proact_weighted.c - proactive planner with per-task predicted weights: the same walk as
 * plan_proact.c, but each offloader chooses which of its not-yet-started tasks leave so that the
 * moved load fits each victim's deficit, instead of counting tasks of average weight.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct task_key {
    double w;
    int32_t task; /* index local to its rank */
} task_key;

/* Scratch layout: rank keys, then the current offloader's tasks sorted by weight, then the
 * "largest alive position <= p" links over them, then one fill cursor per move. */
typedef struct weighted_scratch {
    plan_rank_key *keys;
    task_key *tasks;
    int32_t *link;
    int64_t *cursor;
} weighted_scratch;

size_t tide_plan_proact_weighted_scratch_bytes(int32_t np, int64_t ntasks_total)
{
    if (np < 1 || ntasks_total < 0) return 0;
    size_t t = (size_t)ntasks_total;
    return plan_align((size_t)np * sizeof(plan_rank_key)) + plan_align(t * sizeof(task_key)) +
           plan_align((t + 1) * sizeof(int32_t)) + (size_t)np * sizeof(int64_t);
}

static weighted_scratch carve(void *base, int32_t np, int64_t ntasks_total)
{
    size_t t = (size_t)ntasks_total;
    char *p = base;
    weighted_scratch s;
    s.keys = (plan_rank_key *)p;
    p += plan_align((size_t)np * sizeof(plan_rank_key));
    s.tasks = (task_key *)p;
    p += plan_align(t * sizeof(task_key));
    s.link = (int32_t *)p;
    p += plan_align((t + 1) * sizeof(int32_t));
    s.cursor = (int64_t *)p;
    return s;
}

static int compare_task_keys(const void *pa, const void *pb)
{
    const task_key *a = pa, *b = pb;
    if (a->w < b->w) return -1;
    if (a->w > b->w) return 1;
    return (a->task > b->task) - (a->task < b->task);
}

/* The movable tasks of one offloader, ascending by (weight, index); among equal weights the
 * highest position, i.e. the task latest in the queue, leaves first. Positions are 1-based in
 * link[] so that 0 can mean "no task": link[p] == p while position p is still available, and
 * otherwise points towards a lower position (union-find with path halving), so "largest
 * available position <= p" costs near-constant amortised time. */
typedef struct offloader_tasks {
    task_key *sorted;
    int32_t *link;
    int32_t n;
    int32_t smallest; /* lowest position that may still be available */
} offloader_tasks;

static int32_t available_at_or_below(offloader_tasks *o, int32_t p)
{
    while (o->link[p] != p) {
        o->link[p] = o->link[o->link[p]];
        p = o->link[p];
    }
    return p;
}

static void take(offloader_tasks *o, int32_t p)
{
    o->link[p] = p - 1;
}

static int32_t smallest_available(offloader_tasks *o)
{
    while (o->smallest <= o->n && o->link[o->smallest] != o->smallest)
        o->smallest++;
    return o->smallest <= o->n ? o->smallest : 0;
}

/* Largest available task with weight <= x, or 0. */
static int32_t largest_fitting(offloader_tasks *o, double x)
{
    int32_t lo = 0, hi = o->n; /* invariant: positions <= lo fit (0 trivially), > hi do not */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (o->sorted[mid - 1].w <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return available_at_or_below(o, lo);
}

/* Zero-weight tasks change no load; they are marked taken up front so they never move. */
static void load_offloader(offloader_tasks *o, const double *w, int64_t n, task_key *sorted,
                           int32_t *link)
{
    o->sorted = sorted;
    o->link = link;
    o->n = (int32_t)n;
    for (int32_t t = 0; t < o->n; t++) {
        sorted[t].w = w[t];
        sorted[t].task = t;
    }
    if (n > 1) qsort(sorted, (size_t)n, sizeof *sorted, compare_task_keys);
    link[0] = 0;
    for (int32_t p = 1; p <= o->n; p++)
        link[p] = sorted[p - 1].w > 0.0 ? p : p - 1;
    o->smallest = 1;
}

static int check_weights(int32_t np, const int64_t *task_off, const double *task_w)
{
    if (task_off[0] != 0) return TIDE_PLAN_EINVAL;
    for (int32_t i = 0; i < np; i++) {
        int64_t n = task_off[i + 1] - task_off[i];
        if (n < 0 || n > INT32_MAX - 1) return TIDE_PLAN_EINVAL;
    }
    for (int64_t t = 0; t < task_off[np]; t++)
        if (!(task_w[t] >= 0.0) || task_w[t] > 1e300) return TIDE_PLAN_EINVAL;
    return TIDE_PLAN_OK;
}

/* Records the moved tasks' indices per move, ascending, into plan->ids (moves already sorted). */
static void fill_ids(int32_t np, const int64_t *task_off, const int32_t *dest, tide_move_plan *plan,
                     int64_t *cursor)
{
    int64_t next = 0;
    for (size_t k = 0; k < plan->nmoves; k++) {
        plan->moves[k].unit_ids = plan->ids + next;
        cursor[k] = next;
        next += plan->moves[k].count;
    }
    for (int32_t i = 0; i < np; i++) {
        size_t n;
        size_t first = tide_plan_moves_from(plan, i, &n);
        if (n == 0) continue;
        for (int64_t t = task_off[i]; t < task_off[i + 1]; t++) {
            if (dest[t] == i) continue;
            size_t lo = first, hi = first + n - 1; /* the move with to == dest[t] */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (plan->moves[mid].to < dest[t])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            plan->ids[cursor[lo]++] = t - task_off[i];
        }
    }
}

int tide_plan_proact_weighted(int32_t np, const double *load, const int64_t *task_off,
                              const double *task_w, void *scratch, int32_t *dest,
                              tide_move_plan *plan)
{
    return tide_plan_proact_weighted_margin(np, load, NULL, task_off, task_w, scratch, dest, plan);
}

static int check_weighted_inputs(int32_t np, const double *load, const double *margin,
                                 const int64_t *task_off, const double *task_w, const int32_t *dest,
                                 const tide_move_plan *plan)
{
    if (task_off == NULL || dest == NULL || plan == NULL || plan->moves == NULL)
        return TIDE_PLAN_EINVAL;
    int rc = plan_check_inputs(np, load, NULL);
    if (rc == TIDE_PLAN_OK) rc = plan_check_margins(np, margin);
    if (rc != TIDE_PLAN_OK) return rc;
    if (task_off[np] > 0 && task_w == NULL) return TIDE_PLAN_EINVAL;
    rc = check_weights(np, task_off, task_w);
    if (rc != TIDE_PLAN_OK) return rc;
    if (plan->capacity < (size_t)(np - 1)) return TIDE_PLAN_EINVAL;
    return TIDE_PLAN_OK;
}

/* Moves the loaded offloader's tasks to dst (src_dest: dest[] of the offloader's tasks) until
 * the victim's deficit *under is covered or no task fits the surplus *over, which sets
 * *offloader_done. Returns how many moved. */
static int64_t fill_victim(offloader_tasks *o, double *over, double *under, int32_t *src_dest,
                           int32_t dst, int *offloader_done)
{
    int64_t count = 0;
    int victim_done = 0;
    *offloader_done = 0;
    while (!*offloader_done && !victim_done) {
        /* Prefer the largest task that fits both the deficit and the surplus; if none fits
         * the deficit, overshoot the victim with the smallest task that fits the surplus (it
         * then ends below L_avg + that task's weight and is full). No task fitting the
         * surplus means the offloader is done. */
        int32_t p = largest_fitting(o, *under < *over ? *under : *over);
        if (p == 0) {
            p = smallest_available(o);
            if (p == 0 || o->sorted[p - 1].w > *over) {
                *offloader_done = 1;
                break;
            }
            p = largest_fitting(o, o->sorted[p - 1].w); /* the latest of equal weights */
        }
        double w = o->sorted[p - 1].w;
        take(o, p);
        src_dest[o->sorted[p - 1].task] = dst;
        count++;
        *over -= w;
        *under -= w;
        victim_done = *under <= 0.0;
    }
    return count;
}

static void add_move(tide_move_plan *plan, int32_t src, int32_t dst, int64_t count)
{
    tide_move *m = &plan->moves[plan->nmoves++];
    m->from = src;
    m->to = dst;
    m->count = count;
    m->unit_ids = NULL;
}

int tide_plan_proact_weighted_margin(int32_t np, const double *load, const double *margin,
                                     const int64_t *task_off, const double *task_w, void *scratch,
                                     int32_t *dest, tide_move_plan *plan)
{
    return tide_plan_proact_weighted_ordered(np, load, margin, NULL, task_off, task_w, scratch,
                                             dest, plan);
}

int tide_plan_proact_weighted_ordered(int32_t np, const double *load, const double *margin,
                                      const int32_t *order, const int64_t *task_off,
                                      const double *task_w, void *scratch, int32_t *dest,
                                      tide_move_plan *plan)
{
    int rc = check_weighted_inputs(np, load, margin, task_off, task_w, dest, plan);
    if (rc != TIDE_PLAN_OK) return rc;

    void *base = scratch;
    if (base == NULL) {
        base = malloc(tide_plan_proact_weighted_scratch_bytes(np, task_off[np]));
        if (base == NULL) return TIDE_PLAN_ENOMEM;
    }
    weighted_scratch s = carve(base, np, task_off[np]);
    if (plan_sort_ranks(np, load, order, s.keys) != TIDE_PLAN_OK) {
        if (scratch == NULL) free(base);
        return TIDE_PLAN_EINVAL;
    }
    plan->np = np;
    plan->nmoves = 0;
    for (int32_t i = 0; i < np; i++)
        for (int64_t t = task_off[i]; t < task_off[i + 1]; t++)
            dest[t] = i;
    double avg = plan_sorted_sum(np, s.keys) / (double)np;
    double level = plan_sender_level(np, s.keys, avg, margin);

    int32_t hi = np - 1, lo = 0;
    double over = plan_surplus(s.keys, hi, avg, level, margin);
    double under = plan_deficit(s.keys, lo, avg, margin);
    offloader_tasks o = {0};
    int32_t loaded = -1; /* the offloader whose tasks `o` holds; sorted only once it is reached */
    while (hi > lo && s.keys[hi].load > avg && s.keys[lo].load < avg) {
        if (!(over > 0.0)) { /* within its margin: see plan_proact.c */
            hi--;
            over = plan_surplus(s.keys, hi, avg, level, margin);
            continue;
        }
        if (!(under > 0.0)) {
            lo++;
            under = plan_deficit(s.keys, lo, avg, margin);
            continue;
        }
        int32_t src = s.keys[hi].rank;
        int32_t dst = s.keys[lo].rank;
        if (loaded != hi) {
            int64_t n = task_off[src + 1] - task_off[src];
            load_offloader(&o, n > 0 ? task_w + task_off[src] : NULL, n, s.tasks, s.link);
            loaded = hi;
        }
        int offloader_done;
        int64_t count = fill_victim(&o, &over, &under, dest + task_off[src], dst, &offloader_done);
        if (count > 0) add_move(plan, src, dst, count);
        if (offloader_done) {
            hi--;
            over = plan_surplus(s.keys, hi, avg, level, margin);
        }
        if (under <= 0.0) { /* the victim is full */
            lo++;
            under = plan_deficit(s.keys, lo, avg, margin);
        }
    }

    plan_sort_moves(plan);
    if (plan->ids != NULL) fill_ids(np, task_off, dest, plan, s.cursor);
    if (scratch == NULL) free(base);
    return TIDE_PLAN_OK;
}
