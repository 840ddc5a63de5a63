/*
 * global_gossip.c - push gossip of underloaded ranks (Grapevine style), per-rank steps and the
 * round-by-round simulation of all ranks.
 *
 * A rank that learned something new in a round sends everything it knows to `fanout` random
 * peers in the next; an underloaded rank starts knowing itself. Gossip ends when a round teaches
 * nobody anything (quiescence): no rank needs to gather all loads, and with fanout 2 the news
 * reaches nearly every rank in O(log np) rounds.
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

size_t tide_gossip_words(int32_t np)
{
    return np > 0 ? ((size_t)np + 63) / 64 : 0;
}

int32_t tide_gossip_peers(int32_t np, int32_t me, int32_t fanout, uint64_t *rng, int32_t *peers)
{
    if (np < 2 || fanout < 1) return 0;
    if (fanout >= np - 1) {
        int32_t n = 0;
        for (int32_t r = 0; r < np; r++)
            if (r != me) peers[n++] = r;
        return n;
    }
    int32_t n = 0;
    while (n < fanout) {
        /* Draw among the np - 1 others and reject repeats: fanout is tiny against np. */
        int32_t x = (int32_t)lb_rand_below(rng, (uint64_t)np - 1);
        if (x >= me) x++;
        bool dup = false;
        for (int32_t i = 0; i < n; i++)
            dup |= peers[i] == x;
        if (!dup) peers[n++] = x;
    }
    return n;
}

int64_t tide_gossip_merge(int32_t np, uint64_t *known, const uint64_t *msg)
{
    int64_t learned = 0;
    for (size_t i = 0; i < tide_gossip_words(np); i++) {
        uint64_t fresh = msg[i] & ~known[i];
        learned += __builtin_popcountll(fresh);
        known[i] |= fresh;
    }
    return learned;
}

int64_t lb_bitset_list(int32_t np, const uint64_t *bits, int32_t *out)
{
    int64_t n = 0;
    for (size_t i = 0; i < tide_gossip_words(np); i++)
        for (uint64_t w = bits[i]; w != 0; w &= w - 1)
            out[n++] = (int32_t)(i * 64 + (size_t)__builtin_ctzll(w));
    return n;
}

int lb_gossip_simulate(int32_t np, const bool *announce, int32_t fanout, uint64_t *rng,
                       uint64_t *known, int32_t *rounds, int64_t *messages)
{
    size_t words = tide_gossip_words(np);
    bool *fresh = malloc((size_t)np * sizeof *fresh);
    bool *next = malloc((size_t)np * sizeof *next);
    int32_t *peers = malloc((size_t)(fanout > np ? np : fanout) * sizeof *peers + sizeof *peers);
    /* Messages of a round carry the sender's knowledge at the start of the round. */
    uint64_t *sent = malloc((size_t)np * words * sizeof *sent);
    int32_t *senders = malloc((size_t)np * sizeof *senders);
    if (fresh == NULL || next == NULL || peers == NULL || sent == NULL || senders == NULL) {
        free(fresh);
        free(next);
        free(peers);
        free(sent);
        free(senders);
        return TIDE_PLAN_ENOMEM;
    }
    memset(known, 0, (size_t)np * words * sizeof *known);
    for (int32_t r = 0; r < np; r++) {
        fresh[r] = announce[r];
        if (announce[r]) known[(size_t)r * words + (size_t)r / 64] |= 1ull << (r % 64);
    }
    *rounds = 0;
    *messages = 0;
    for (;;) {
        int32_t ns = 0;
        for (int32_t r = 0; r < np; r++)
            if (fresh[r]) {
                memcpy(&sent[(size_t)ns * words], &known[(size_t)r * words], words * sizeof *sent);
                senders[ns++] = r;
            }
        if (ns == 0 || np < 2) break;
        ++*rounds;
        memset(next, 0, (size_t)np * sizeof *next);
        for (int32_t i = 0; i < ns; i++) {
            int32_t r = senders[i];
            int32_t n = tide_gossip_peers(np, r, fanout, &rng[r], peers);
            *messages += n;
            for (int32_t k = 0; k < n; k++)
                if (tide_gossip_merge(np, &known[(size_t)peers[k] * words],
                                      &sent[(size_t)i * words]) > 0)
                    next[peers[k]] = true;
        }
        bool *t = fresh;
        fresh = next;
        next = t;
    }
    free(fresh);
    free(next);
    free(peers);
    free(sent);
    free(senders);
    return TIDE_PLAN_OK;
}
