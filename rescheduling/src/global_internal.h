/*
 * global_internal.h - helpers shared by the global strategies: validation, the seeded generator,
 * an indexed binary heap of ranks, object orderings and the symmetrised communication graph.
 */
#ifndef TIDE_GLOBAL_INTERNAL_H
#define TIDE_GLOBAL_INTERNAL_H

#include "tide_global.h"
#include "tide_global_rank.h"

/* Validates in (and params when non-NULL); fills *p with params or the defaults. */
int lb_check(const tide_global_input *in, const tide_global_params *params, tide_global_params *p);

static inline double lb_speed(const tide_global_input *in, int32_t r)
{
    return in->speed != NULL ? in->speed[r] : 1.0;
}

/* time[r] = work of r's objects / speed[r]; returns total work / total speed (balanced time). */
double lb_rank_times(const tide_global_input *in, const int32_t *owner, double *time);

/* splitmix64: small, seedable, and the same stream on every platform. */
static inline uint64_t lb_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1; the modulo bias is below 2^-40 for n < 2^24 and irrelevant here. */
static inline uint64_t lb_rand_below(uint64_t *state, uint64_t n)
{
    return lb_rand(state) % n;
}

static inline double lb_uniform(uint64_t *state)
{
    return (double)(lb_rand(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Indexed binary heap of ranks keyed by a double, ordered by (key, rank) ascending (min-heap) or
 * (key descending, rank ascending) (max-heap); keys change in place through lb_heap_update. */
typedef struct lb_heap {
    int32_t n;
    bool max;
    double *key; /* np: key of every rank (in or out of the heap) */
    int32_t *at; /* np: position in item[] or -1 */
    int32_t *item;
} lb_heap;

int lb_heap_init(lb_heap *h, int32_t np, bool max);
void lb_heap_free(lb_heap *h);
void lb_heap_push(lb_heap *h, int32_t r, double key);
int32_t lb_heap_top(const lb_heap *h); /* -1 when empty */
int32_t lb_heap_pop(lb_heap *h);
void lb_heap_update(lb_heap *h, int32_t r, double key); /* r must be in the heap */
void lb_heap_remove(lb_heap *h, int32_t r);

/* Object indices 0..n-1 sorted by load descending (ties: index ascending). Caller frees. */
int64_t *lb_sort_heavy_first(int64_t n, const double *load);
/* idx[0..n) sorted in place by w[idx] ascending, ties by idx ascending. */
void lb_sort_by_load_asc(int64_t n, int64_t *idx, const double *w);

/* The ranks whose time is above avg (at_avg: at or above it) into out (np entries), heaviest
 * first, ties by lower rank; returns how many, or -1 when out of memory. */
int32_t lb_donors(int32_t np, const double *time, double avg, bool at_avg, int32_t *out);

/* Objects grouped by rank: obj[start[r] .. start[r+1]) are r's objects, heaviest first. */
typedef struct lb_by_rank {
    int64_t *start; /* np + 1 */
    int64_t *obj;   /* nobj */
} lb_by_rank;
int lb_by_rank_make(const tide_global_input *in, const int32_t *owner, lb_by_rank *g);
void lb_by_rank_free(lb_by_rank *g);

/* The donor walk of SmartLB and AverageLB (global_walk.c): new_owner starts as the current
 * mapping; time[] the rank times under it, avg the balanced time, donors[0..ndonors) the ranks
 * above avg (at_avg: at or above), heaviest first; least a min-heap of time; g the objects by
 * their initial rank. lb_walk_move moves object o to rank `to` and updates time and the heap.
 * lb_walk_free after init, whatever it returned. */
typedef struct lb_walk {
    double *time, avg;
    int32_t *donors, ndonors;
    lb_heap least;
    lb_by_rank g;
} lb_walk;
int lb_walk_init(lb_walk *w, const tide_global_input *in, bool at_avg, int32_t *new_owner);
void lb_walk_move(lb_walk *w, const tide_global_input *in, int64_t o, int32_t to,
                  int32_t *new_owner);
void lb_walk_free(lb_walk *w);

/* Undirected graph: u->v and v->u of the input added, self edges and zero volumes dropped. */
typedef struct lb_graph {
    int64_t *off; /* nobj + 1 */
    int64_t *adj;
    double *vol;
    double *total; /* nobj: sum of vol over o's edges */
} lb_graph;
int lb_graph_make(const tide_global_input *in, lb_graph *g);
void lb_graph_free(lb_graph *g);

/* Per-rank volume of one object's neighbours, kept sparse so a query costs O(degree). */
typedef struct lb_nbvol {
    double *vol; /* np, zero outside touched */
    int32_t *touched;
    int32_t ntouched;
} lb_nbvol;
int lb_nbvol_init(lb_nbvol *s, int32_t np);
void lb_nbvol_free(lb_nbvol *s);
/* Fill with o's neighbours' volume per owner rank (owner[v] < 0: not placed, skipped). */
void lb_nbvol_fill(lb_nbvol *s, const lb_graph *g, const int32_t *owner, int64_t o);
void lb_nbvol_clear(lb_nbvol *s);

/* Per-rank generator state of a simulated distributed round: rank r of a real job would seed its
 * own stream the same way from (seed, r). */
static inline uint64_t lb_rank_seed(uint64_t seed, int32_t r)
{
    uint64_t s = seed ^ (0xD1B54A32D192ED03ull * ((uint64_t)r + 1));
    return lb_rand(&s);
}

/* Gossip of the ranks with announce[r] set, simulated round by round until quiescence; known
 * receives np bitsets of tide_gossip_words(np) words. rng: np per-rank states (advanced). */
int lb_gossip_simulate(int32_t np, const bool *announce, int32_t fanout, uint64_t *rng,
                       uint64_t *known, int32_t *rounds, int64_t *messages);
/* The ranks set in one bitset, ascending; returns how many. */
int64_t lb_bitset_list(int32_t np, const uint64_t *bits, int32_t *out);

/* The sequential simulations' handshake (global_handshake.c): proposals of a round from every
 * rank, answered in a seeded random arrival order, verdicts handed back to each proposer target
 * by target (ascending), in the order written for one target. */
typedef struct lb_handshake_item {
    int32_t from, target;
    int64_t seq; /* index into p: the order written */
    bool ok;
} lb_handshake_item;
typedef struct lb_handshake {
    int64_t n, cap;
    tide_dlb_proposal *p;
    lb_handshake_item *item;
    int64_t *order;
} lb_handshake;
typedef bool (*lb_answer_fn)(void *ctx, int32_t target, double load);
typedef void (*lb_answered_fn)(void *ctx, int32_t from, const tide_dlb_proposal *p, bool ok);
int lb_handshake_add(lb_handshake *H, int32_t from, const tide_dlb_proposal *p, int64_t n);
void lb_handshake_run(lb_handshake *H, uint64_t *order_rng, lb_answer_fn answer,
                      lb_answered_fn answered, void *ctx);
void lb_handshake_free(lb_handshake *H);

#endif /* TIDE_GLOBAL_INTERNAL_H */
