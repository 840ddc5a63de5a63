/*
 * global_handshake.c - the sequential simulations' handshake transport (tide_global_packdrop_sim,
 * tide_global_distributed_sim): every rank's proposals of a round are answered by their targets
 * in a seeded random order (the order messages would arrive in), then every proposer hears its
 * verdicts target by target in ascending rank order, in the order written for one target: what
 * libtide's and tide-sim's handshakes hand to the answered steps (tide_global_rank.h).
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

int lb_handshake_add(lb_handshake *H, int32_t from, const tide_dlb_proposal *p, int64_t n)
{
    if (H->n + n > H->cap) {
        int64_t cap = 2 * H->cap > H->n + n ? 2 * H->cap : H->n + n + 16;
        tide_dlb_proposal *np = realloc(H->p, (size_t)cap * sizeof *np);
        if (np != NULL) H->p = np;
        lb_handshake_item *ni = realloc(H->item, (size_t)cap * sizeof *ni);
        if (ni != NULL) H->item = ni;
        int64_t *no = realloc(H->order, (size_t)cap * sizeof *no);
        if (no != NULL) H->order = no;
        if (np == NULL || ni == NULL || no == NULL) return TIDE_PLAN_ENOMEM;
        H->cap = cap;
    }
    for (int64_t i = 0; i < n; i++) {
        H->p[H->n] = p[i];
        H->item[H->n] = (lb_handshake_item){from, p[i].target, H->n, false};
        H->order[H->n] = H->n;
        H->n++;
    }
    return TIDE_PLAN_OK;
}

static int by_proposer_target(const void *a, const void *b)
{
    const lb_handshake_item *x = a, *y = b;
    if (x->from != y->from) return (x->from > y->from) - (x->from < y->from);
    if (x->target != y->target) return (x->target > y->target) - (x->target < y->target);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

void lb_handshake_run(lb_handshake *H, uint64_t *order_rng, lb_answer_fn answer,
                      lb_answered_fn answered, void *ctx)
{
    /* Arrival order of this round's proposals: a seeded shuffle. */
    for (int64_t i = H->n - 1; i > 0; i--) {
        int64_t j = (int64_t)lb_rand_below(order_rng, (uint64_t)i + 1);
        int64_t t = H->order[i];
        H->order[i] = H->order[j];
        H->order[j] = t;
    }
    for (int64_t i = 0; i < H->n; i++) {
        lb_handshake_item *it = &H->item[H->order[i]];
        it->ok = answer(ctx, it->target, H->p[it->seq].load);
    }
    /* No proposal this round: item may still be NULL, and qsort's array must not be. */
    if (H->n > 0) qsort(H->item, (size_t)H->n, sizeof *H->item, by_proposer_target);
    for (int64_t i = 0; i < H->n; i++)
        answered(ctx, H->item[i].from, &H->p[H->item[i].seq], H->item[i].ok);
    H->n = 0;
}

void lb_handshake_free(lb_handshake *H)
{
    free(H->p);
    free(H->item);
    free(H->order);
    *H = (lb_handshake){0};
}
