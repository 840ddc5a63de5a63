/* Messages between objects: counted into the communication graph, routed after the iteration
 * to wherever the target lives at that moment (after any migration), and handed to the
 * target's next task in a deterministic order. */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

static int cmp_edge(const void *a, const void *b)
{
    const tide_obj_edge *x = a, *y = b;
    if (x->from != y->from) return (x->from > y->from) - (x->from < y->from);
    return (x->to > y->to) - (x->to < y->to);
}

void tide_objmsg_count(tide_objects_layer *L)
{
    int64_t n = L->nedges;
    TIDE_OBJ_NEED(tide_obj_grow((void **)&L->edges, &L->edges_cap, n + L->nout, sizeof *L->edges));
    for (size_t off = 0; off < L->out.len;) {
        tide_obj_msghdr h;
        memcpy(&h, L->out.data + off, sizeof h);
        L->edges[n++] = (tide_obj_edge){h.from, h.to, (double)h.size};
        off += TIDE_OBJ_REC(h.size);
    }
    if (n > 1) qsort(L->edges, (size_t)n, sizeof *L->edges, cmp_edge);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (m > 0 && L->edges[m - 1].from == L->edges[i].from &&
            L->edges[m - 1].to == L->edges[i].to)
            L->edges[m - 1].bytes += L->edges[i].bytes;
        else
            L->edges[m++] = L->edges[i];
    }
    L->nedges = m;
}

static int owner_of(const tide_objects_layer *L, int64_t id)
{
    int64_t k = tide_objdir_find(L, id);
    if (k < 0) tide_fatal("objects: a message for unknown object %lld was accepted", (long long)id);
    return L->dir_owner[k];
}

/* Walks the received records, checking each against the buffer before trusting it. */
static void deliver(tide_objects_layer *L, const unsigned char *buf, size_t len, int src,
                    int64_t *delivered, int64_t *bytes)
{
    for (size_t off = 0; off < len;) {
        tide_obj_msghdr h;
        if (len - off < sizeof h) tide_fatal("objects: truncated message record from rank %d", src);
        memcpy(&h, buf + off, sizeof h);
        if (h.size > len - off - sizeof h)
            tide_fatal("objects: message record from rank %d overruns its buffer", src);
        size_t rec = TIDE_OBJ_REC(h.size);
        tide_obj *o = tide_objloc_find(L, h.to);
        if (!o)
            tide_fatal("objects: rank %d routed a message for object %lld here, which does not "
                       "live here",
                       src, (long long)h.to);
        TIDE_OBJ_NEED(tide_obj_buf_reserve(&o->inbox, rec));
        memcpy(o->inbox.data + o->inbox.len, buf + off, rec);
        o->inbox.len += rec;
        o->ninbox++;
        (*delivered)++;
        *bytes += (int64_t)h.size;
        off += rec;
    }
}

void tide_objmsg_route(tide_objects_layer *L, int64_t *delivered, int64_t *bytes)
{
    int np = L->size;
    size_t *need = calloc((size_t)np, sizeof *need);
    int *scount = malloc((size_t)np * sizeof *scount),
        *sdispl = malloc((size_t)np * sizeof *sdispl);
    int *rcount = malloc((size_t)np * sizeof *rcount),
        *rdispl = malloc((size_t)np * sizeof *rdispl);
    TIDE_OBJ_NEED(need && scount && sdispl && rcount && rdispl);
    for (size_t off = 0; off < L->out.len;) {
        tide_obj_msghdr h;
        memcpy(&h, L->out.data + off, sizeof h);
        need[owner_of(L, h.to)] += TIDE_OBJ_REC(h.size);
        off += TIDE_OBJ_REC(h.size);
    }
    size_t total = 0;
    for (int r = 0; r < np; r++) {
        scount[r] = tide_obj_mpi_count(need[r], "messages");
        sdispl[r] = tide_obj_mpi_count(total, "messages");
        total += need[r];
    }
    unsigned char *send = malloc(total + 1);
    TIDE_OBJ_NEED(send);
    for (int r = 0; r < np; r++)
        need[r] = (size_t)sdispl[r];
    for (size_t off = 0; off < L->out.len;) {
        tide_obj_msghdr h;
        memcpy(&h, L->out.data + off, sizeof h);
        size_t rec = TIDE_OBJ_REC(h.size);
        int dest = owner_of(L, h.to);
        memcpy(send + need[dest], L->out.data + off, rec);
        need[dest] += rec;
        off += rec;
    }
    size_t rtotal;
    unsigned char *recv =
        tide_objcoll_alltoallv(L, send, scount, sdispl, rcount, rdispl, &rtotal, "messages");
    *delivered = *bytes = 0;
    for (int r = 0; r < np; r++)
        deliver(L, recv + rdispl[r], (size_t)rcount[r], r, delivered, bytes);
    L->out.len = 0;
    L->nout = 0;
    free(send);
    free(recv);
    free(need);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
}

typedef struct msgref {
    int64_t from;
    uint32_t seq;
    size_t off, len;
} msgref;

static int cmp_ref(const void *a, const void *b)
{
    const msgref *x = a, *y = b;
    if (x->from != y->from) return (x->from > y->from) - (x->from < y->from);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorting by (sender, sender's order) makes what an object sees independent of where its
 * senders ran, how many workers raced, and of the ranks' arrival order. */
void tide_objmsg_take_inbox(tide_obj *o)
{
    o->running.len = 0;
    o->nrunning = o->ninbox;
    if (o->ninbox == 0) return;
    msgref *refs = malloc((size_t)o->ninbox * sizeof *refs);
    TIDE_OBJ_NEED(refs);
    size_t off = 0;
    for (uint64_t i = 0; i < o->ninbox; i++) {
        tide_obj_msghdr h;
        memcpy(&h, o->inbox.data + off, sizeof h);
        refs[i] = (msgref){h.from, h.seq, off, TIDE_OBJ_REC(h.size)};
        off += refs[i].len;
    }
    qsort(refs, (size_t)o->ninbox, sizeof *refs, cmp_ref);
    TIDE_OBJ_NEED(tide_obj_buf_reserve(&o->running, o->inbox.len));
    for (uint64_t i = 0; i < o->ninbox; i++) {
        memcpy(o->running.data + o->running.len, o->inbox.data + refs[i].off, refs[i].len);
        o->running.len += refs[i].len;
    }
    free(refs);
    o->inbox.len = 0;
    o->ninbox = 0;
}
