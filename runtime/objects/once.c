/* Exactly one copy's messages (docs/objects.md, "Replicated object tasks").
 *
 * Under TIDE_LB=rep or react_rep a speculative copy of an object's task runs on another rank
 * while the original stays queued. The task layer keeps the outputs of exactly one copy
 * (replica.c), but both copies may have run, and each sent its messages into the outbox of the
 * rank that ran it. So an object's task also reports, in its kept outputs, the rank that ran it
 * (tide_obj_ran), and after the taskwait the messages are settled before anything counts them:
 *   - a rank keeps the messages it sent while running one of its own objects: an original runs
 *     only if it won (a replica result that arrives later is discarded);
 *   - it keeps those of another rank's object only if that object's owner names it as the rank
 *     whose copy was kept.
 * The owners' notices travel only when some copy lost somewhere, which one allreduce of
 * (copies run for other ranks - kept copies that ran on other ranks) tells every rank alike. */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

void tide_objonce_ran_here(tide_objects_layer *L, int64_t id)
{
    pthread_mutex_lock(&L->out_lock);
    bool ok = tide_obj_grow((void **)&L->ran_here, &L->ran_here_cap, L->nran_here + 1,
                            sizeof *L->ran_here);
    if (ok) L->ran_here[L->nran_here++] = id;
    pthread_mutex_unlock(&L->out_lock);
    /* Without the record this rank could not tell a kept copy's messages from a lost one's. */
    TIDE_OBJ_NEED(ok);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool has_id(const int64_t *sorted, int64_t n, int64_t id)
{
    return n > 0 && bsearch(&id, sorted, (size_t)n, sizeof id, cmp_id);
}

/* Each owner tells every other rank which of its objects' kept copies that rank ran; returns
 * those this rank ran (sorted), each checked against what it did run. */
static int64_t *exchange_kept(tide_objects_layer *L, int64_t *nkept)
{
    int np = L->size;
    int *scount = calloc((size_t)np, sizeof *scount), *sdispl = malloc((size_t)np * sizeof *sdispl);
    int *rcount = malloc((size_t)np * sizeof *rcount),
        *rdispl = malloc((size_t)np * sizeof *rdispl);
    TIDE_OBJ_NEED(scount && sdispl && rcount && rdispl);
    for (int64_t i = 0; i < L->nloc; i++)
        if (L->loc[i]->ran.rank != L->rank) scount[L->loc[i]->ran.rank] += (int)sizeof(int64_t);
    size_t total = 0;
    for (int r = 0; r < np; r++) {
        sdispl[r] = tide_obj_mpi_count(total, "replica notices");
        total += (size_t)scount[r];
    }
    unsigned char *send = malloc(total + 1);
    TIDE_OBJ_NEED(send);
    for (int64_t i = 0; i < L->nloc; i++) {
        int r = L->loc[i]->ran.rank;
        if (r == L->rank) continue;
        memcpy(send + sdispl[r], &L->loc[i]->id, sizeof(int64_t));
        sdispl[r] += (int)sizeof(int64_t);
    }
    for (int r = 0; r < np; r++)
        sdispl[r] -= scount[r];
    size_t rtotal;
    unsigned char *recv =
        tide_objcoll_alltoallv(L, send, scount, sdispl, rcount, rdispl, &rtotal, "replica notices");
    int64_t n = (int64_t)(rtotal / sizeof(int64_t));
    int64_t *kept = (int64_t *)(void *)recv; /* malloc's alignment */
    if (n > 1) qsort(kept, (size_t)n, sizeof *kept, cmp_id);
    if (L->nran_here > 1) qsort(L->ran_here, (size_t)L->nran_here, sizeof *L->ran_here, cmp_id);
    for (int64_t i = 0; i < n; i++)
        if (!has_id(L->ran_here, L->nran_here, kept[i]))
            tide_fatal("objects: the owner of object %lld kept a copy of its task from this rank, "
                       "which did not run it",
                       (long long)kept[i]);
    free(send);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    *nkept = n;
    return kept;
}

/* Keeps the outbox records of own objects and of the kept copies. */
static void drop_lost(tide_objects_layer *L, const int64_t *kept, int64_t nkept)
{
    size_t w = 0;
    int64_t n = 0;
    for (size_t off = 0; off < L->out.len;) {
        tide_obj_msghdr h;
        memcpy(&h, L->out.data + off, sizeof h);
        size_t rec = TIDE_OBJ_REC(h.size);
        if (tide_objloc_find(L, h.from) || has_id(kept, nkept, h.from)) {
            memmove(L->out.data + w, L->out.data + off, rec);
            w += rec;
            n++;
        }
        off += rec;
    }
    L->out.len = w;
    L->nout = n;
}

void tide_objonce_settle(tide_objects_layer *L)
{
    long long lost = L->nran_here;
    for (int64_t i = 0; i < L->nloc; i++) {
        const tide_obj *o = L->loc[i];
        if (o->ran.rank < 0 || o->ran.rank >= L->size)
            tide_fatal("objects: object %lld's task reported no rank that ran it (%d)",
                       (long long)o->id, o->ran.rank);
        if (o->ran.rank != L->rank) lost--;
    }
    MPI_Allreduce(MPI_IN_PLACE, &lost, 1, MPI_LONG_LONG, MPI_SUM, L->comm);
    if (lost < 0)
        tide_fatal("objects: %lld more kept copies of object tasks than copies that ran", -lost);
    if (lost > 0) {
        int64_t nkept;
        int64_t *kept = exchange_kept(L, &nkept);
        drop_lost(L, kept, nkept);
        free(kept);
    }
    L->nran_here = 0;
}
