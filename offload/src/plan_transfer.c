/* Transfer-aware plans (tide_plan.h, docs/offload-planner.md "What moves cost"): which of a
 * plan's moves arrive in time to pay for their transfer. A pure function over arrays. */
#include "plan_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* A send's key in the transport's order: its sender, its pass (its index among the sends of
 * the same (from, to) pair) and its receiver; the three identify it. */
typedef struct order_key {
    int32_t from, to;
    int64_t pass;
    size_t at; /* its index in the input */
} order_key;

static int by_pair_then_input(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int by_send_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->pass != y->pass) return x->pass < y->pass ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

static bool valid_send(int32_t np, const tide_xfer_send *s)
{
    return s->from >= 0 && s->from < np && s->to >= 0 && s->to < np && s->from != s->to &&
           isfinite(s->weight) && s->weight >= 0;
}

int tide_plan_transfer_order(int32_t np, tide_xfer_send *sends, size_t n)
{
    if (np < 1 || (n && !sends)) return TIDE_PLAN_EINVAL;
    for (size_t k = 0; k < n; k++)
        if (!valid_send(np, &sends[k])) return TIDE_PLAN_EINVAL;
    if (n < 2) return TIDE_PLAN_OK;
    order_key *key = malloc(n * sizeof *key);
    tide_xfer_send *copy = malloc(n * sizeof *copy);
    if (!key || !copy) {
        free(key), free(copy);
        return TIDE_PLAN_ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
        key[k] = (order_key){sends[k].from, sends[k].to, 0, k};
    qsort(key, n, sizeof *key, by_pair_then_input);
    for (size_t k = 1; k < n; k++)
        if (key[k].from == key[k - 1].from && key[k].to == key[k - 1].to)
            key[k].pass = key[k - 1].pass + 1;
    qsort(key, n, sizeof *key, by_send_order);
    for (size_t k = 0; k < n; k++)
        copy[k] = sends[key[k].at];
    for (size_t k = 0; k < n; k++)
        sends[k] = copy[k];
    free(key), free(copy);
    return TIDE_PLAN_OK;
}

static bool valid_rank(const tide_xfer_rank *r)
{
    return isfinite(r->load) && r->load >= 0 && isfinite(r->threads) && r->threads > 0 &&
           isfinite(r->bw) && r->bw >= 0 && isfinite(r->bytes) && r->bytes >= 0 &&
           isfinite(r->ready) && r->ready >= 0;
}

/* Scratch of the walk: per rank its fluid end, the latest end of a task it received, when its
 * link is free again and where its sends are; the sends grouped by sender. */
typedef struct walk {
    double *end, *last, *link;
    size_t *first, *next, *stop;
    size_t *mine;  /* indices of sends, grouped by sender in input order */
    int32_t *heap; /* the senders with sends left, by when their next one would arrive */
    int32_t nheap;
} walk;

static void walk_free(walk *w)
{
    free(w->end), free(w->last), free(w->link), free(w->first), free(w->next), free(w->stop);
    free(w->mine), free(w->heap);
}

static int walk_init(walk *w, int32_t np, const tide_xfer_rank *rank, const tide_xfer_send *s,
                     size_t n)
{
    size_t P = (size_t)np;
    w->end = malloc(P * sizeof *w->end);
    w->last = calloc(P, sizeof *w->last);
    w->link = calloc(P, sizeof *w->link);
    w->first = calloc(P + 1, sizeof *w->first);
    w->next = malloc(P * sizeof *w->next);
    w->stop = malloc(P * sizeof *w->stop);
    w->mine = malloc((n ? n : 1) * sizeof *w->mine);
    w->heap = malloc(P * sizeof *w->heap);
    if (!w->end || !w->last || !w->link || !w->first || !w->next || !w->stop || !w->mine ||
        !w->heap)
        return TIDE_PLAN_ENOMEM;
    for (size_t i = 0; i < P; i++) {
        w->end[i] = rank[i].load / rank[i].threads;
        w->link[i] = rank[i].ready;
    }
    for (size_t k = 0; k < n; k++) /* a counting sort by sender, stable */
        w->first[s[k].from + 1]++;
    for (size_t i = 0; i < P; i++) {
        w->first[i + 1] += w->first[i];
        w->next[i] = w->first[i];
        w->stop[i] = w->first[i + 1];
    }
    for (size_t k = 0; k < n; k++)
        w->mine[w->next[s[k].from]++] = k;
    for (size_t i = 0; i < P; i++)
        w->next[i] = w->first[i];
    return TIDE_PLAN_OK;
}

/* When sender i's next task would arrive (its link free, then one task's bytes). */
static double next_arrival(const walk *w, const tide_xfer_rank *rank, int32_t i)
{
    double b = rank[i].bw > 0 ? rank[i].bytes / rank[i].bw : 0;
    return w->link[i] + b;
}

/* Whether sender i's next send arrives before sender j's (ties: the lower rank). */
static bool sooner(const walk *w, const tide_xfer_rank *rank, int32_t i, int32_t j)
{
    double a = next_arrival(w, rank, i), b = next_arrival(w, rank, j);
    return a < b || (a == b && i < j);
}

/* A binary heap of senders: every step takes the sender whose next send arrives first, so a
 * plan of n sends costs O(n log np) rather than a scan of every rank per send (tide-sim runs
 * it on every one of 1024 ranks). */
static void heap_push(walk *w, const tide_xfer_rank *rank, int32_t i)
{
    int32_t k = w->nheap++;
    while (k > 0 && sooner(w, rank, i, w->heap[(k - 1) / 2])) {
        w->heap[k] = w->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    w->heap[k] = i;
}

static int32_t heap_pop(walk *w, const tide_xfer_rank *rank)
{
    int32_t top = w->heap[0], last = w->heap[--w->nheap], k = 0;
    for (int32_t c; (c = 2 * k + 1) < w->nheap; k = c) {
        if (c + 1 < w->nheap && sooner(w, rank, w->heap[c + 1], w->heap[c])) c++;
        if (!sooner(w, rank, w->heap[c], last)) break;
        w->heap[k] = w->heap[c];
    }
    w->heap[k] = last;
    return top;
}

/* Whether sender i has an undecided send left (skipping those dropped with their pair). */
static bool has_next(walk *w, const tide_xfer_send *s, int32_t i)
{
    size_t *k = &w->next[i];
    while (*k < w->stop[i] && s[w->mine[*k]].arrival == -1)
        (*k)++;
    return *k < w->stop[i];
}

/* The rest of sender i's sends to j arrive later still: they stay too. */
static void drop_pair(const walk *w, tide_xfer_send *s, int32_t i, int32_t j)
{
    for (size_t k = w->next[i]; k < w->stop[i]; k++)
        if (s[w->mine[k]].to == j) s[w->mine[k]].arrival = -1;
}

int tide_plan_transfer(int32_t np, const tide_xfer_rank *rank, tide_xfer_send *sends, size_t n,
                       double *finish)
{
    if (np < 1 || !rank || (n && !sends)) return TIDE_PLAN_EINVAL;
    for (int32_t i = 0; i < np; i++)
        if (!valid_rank(&rank[i])) return TIDE_PLAN_EINVAL;
    for (size_t k = 0; k < n; k++) {
        if (!valid_send(np, &sends[k])) return TIDE_PLAN_EINVAL;
        sends[k].arrival = NAN; /* undecided */
    }
    walk w = {0};
    int rc = walk_init(&w, np, rank, sends, n);
    for (int32_t i = 0; rc == TIDE_PLAN_OK && i < np; i++)
        if (has_next(&w, sends, i)) heap_push(&w, rank, i);
    while (rc == TIDE_PLAN_OK && w.nheap > 0) {
        int32_t i = heap_pop(&w, rank);
        tide_xfer_send *s = &sends[w.mine[w.next[i]++]];
        int32_t j = s->to;
        double a = next_arrival(&w, rank, i);
        double start = fmax(w.end[j], a);
        double done = fmax(start + s->weight / rank[j].threads, a + s->weight);
        if (done < w.end[i]) {
            s->arrival = a;
            w.link[i] = a;
            w.end[j] = start + s->weight / rank[j].threads;
            w.last[j] = fmax(w.last[j], done);
            w.end[i] -= s->weight / rank[i].threads;
        } else {
            s->arrival = -1;
            drop_pair(&w, sends, i, j);
        }
        if (has_next(&w, sends, i)) heap_push(&w, rank, i);
    }
    if (rc == TIDE_PLAN_OK && finish)
        for (int32_t i = 0; i < np; i++)
            finish[i] = fmax(w.end[i], w.last[i]);
    walk_free(&w);
    return rc;
}

/* ---- the drain rate (tide_plan.h) ------------------------------------------------------------ */

static void burst_end(tide_drain *d, double now)
{
    d->time += now - d->since;
    d->burst = 0;
}

void tide_drain_waiting(tide_drain *d, double now)
{
    if (!d->burst) d->burst = 1, d->since = now;
    d->open = 1;
}

void tide_drain_flowing(tide_drain *d, double now)
{
    d->open = 0;
    if (d->burst && d->pending == 0) burst_end(d, now);
}

bool tide_drain_posted(tide_drain *d)
{
    if (!d->burst) return false;
    d->pending++;
    return true;
}

void tide_drain_completed(tide_drain *d, double len, double now, bool burst)
{
    d->last_done = now;
    if (!burst || d->pending <= 0) return;
    d->bytes += len;
    if (--d->pending == 0 && !d->open && d->burst) burst_end(d, now);
}

double tide_drain_rate(const tide_drain *d)
{
    return d->best;
}

/* Only a phase that measured a rate changes the best (a phase of a fine-grained run, which sends
 * nothing, looks at none of them). */
double tide_drain_phase_end(tide_drain *d, double now, double *last_done)
{
    if (d->burst) { /* a burst still running at the phase end: counted so far, and goes on */
        d->time += now - d->since;
        d->since = now;
    }
    if (d->bytes > 0 && d->time > 0) {
        d->rate[d->next] = d->bytes / d->time;
        d->next = (d->next + 1) % TIDE_DRAIN_PHASES;
        d->best = 0;
        for (int i = 0; i < TIDE_DRAIN_PHASES; i++) /* rates are never NaN: no libm call */
            if (d->rate[i] > d->best) d->best = d->rate[i];
    }
    *last_done = d->last_done;
    d->time = d->bytes = d->last_done = 0;
    return d->best;
}

void tide_plan_freeze(double *w, long n, const long *queued, long nq, double budget)
{
    if (!w || n <= 0) return;
    for (long k = 0; k < n; k++) /* started, until found queued */
        w[k] = -w[k];
    for (long q = 0; queued && q < nq; q++) {
        long k = queued[q];
        if (k < 0 || k >= n || w[k] > 0) continue;
        if (budget > 0)
            budget += w[k]; /* about to start: it stays marked */
        else
            w[k] = -w[k];
    }
}
