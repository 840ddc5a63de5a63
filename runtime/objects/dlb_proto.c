/* The machinery of the distributed rescheduling protocols (dlb.h): sparse exchanges, gossip,
 * the three-way handshake and the migration of accepted objects. dlb.c says what the protocols
 * are for. */
#include "dlb.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

void dlb_buf_put(tide_obj_buf *b, const void *p, size_t n)
{
    TIDE_OBJ_NEED(tide_obj_buf_reserve(b, n));
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* Room for a message of n bytes in D->in (what it held before is not kept). */
static unsigned char *in_room(dlb *D, size_t n)
{
    D->in.len = 0;
    TIDE_OBJ_NEED(tide_obj_buf_reserve(&D->in, n));
    return D->in.data;
}

/* A sparse exchange without knowing who sends to whom (non-blocking consensus, Hoefler, Siebert
 * and Lumsdaine 2010): every non-empty D->out[r] goes to r by synchronous send; whatever arrives
 * on tag is handed to recv in arrival order; once this rank's sends were all received it joins
 * an Ibarrier, whose completion means every rank's were. The out buffers keep their contents
 * (the caller reads its proposals back when the replies come) until the caller empties them. */
static void exchange(dlb *D, int tag, recv_fn recv)
{
    MPI_Comm comm = D->L->comm;
    MPI_Request *req = malloc((size_t)D->np * sizeof *req);
    TIDE_OBJ_NEED(req);
    int nreq = 0;
    for (int r = 0; r < D->np; r++)
        if (D->out[r].len)
            MPI_Issend(D->out[r].data, tide_obj_mpi_count(D->out[r].len, "protocol message"),
                       MPI_BYTE, r, tag, comm, &req[nreq++]);
    bool in_barrier = false;
    MPI_Request barrier = MPI_REQUEST_NULL;
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Message msg;
        /* Matched probe: the receive takes exactly the probed message. */
        MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &msg, &st);
        if (flag) {
            int n;
            MPI_Get_count(&st, MPI_BYTE, &n);
            unsigned char *rbuf = in_room(D, (size_t)n);
            MPI_Mrecv(rbuf, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
            recv(D, st.MPI_SOURCE, rbuf, (size_t)n);
            continue;
        }
        int done;
        if (!in_barrier) {
            MPI_Testall(nreq, req, &done, MPI_STATUSES_IGNORE);
            if (done) {
                MPI_Ibarrier(comm, &barrier);
                in_barrier = true;
            }
        } else {
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            if (done) break;
        }
        if (!done) sched_yield(); /* ranks may share cores with their workers and each other */
    }
    free(req);
}

bool dlb_any_rank(MPI_Comm comm, bool mine)
{
    int m = mine, any;
    MPI_Allreduce(&m, &any, 1, MPI_INT, MPI_LOR, comm);
    return any != 0;
}

/* ---------------------------------------------------------------------------------------------
 * Gossip: a rank that learned something in a round sends all it knows to fanout random peers in
 * the next; quiescence when a round taught nobody anything.
 * ------------------------------------------------------------------------------------------- */
static void hear(dlb *D, int64_t rank, double load)
{
    if (rank < 0 || rank >= D->np || !isfinite(load))
        tide_fatal("objects: malformed gossip entry (rank %lld)", (long long)rank);
    if (!isnan(D->heard[rank])) return;
    D->heard[rank] = load;
    D->known[D->nknown++] = (int32_t)rank;
    D->learned = true;
}

static void on_gossip(dlb *D, int src, const unsigned char *buf, size_t len)
{
    if (len % sizeof(gossip_entry))
        tide_fatal("objects: gossip message of %zu bytes from rank %d", len, src);
    for (size_t off = 0; off < len; off += sizeof(gossip_entry)) {
        gossip_entry e;
        memcpy(&e, buf + off, sizeof e);
        hear(D, e.rank, e.load);
    }
}

void dlb_gossip(dlb *D, bool announce, int32_t fanout)
{
    for (int r = 0; r < D->np; r++)
        D->heard[r] = NAN;
    D->nknown = 0;
    if (announce) hear(D, D->me, D->load);
    bool fresh = announce;
    int32_t *peers = malloc((size_t)(fanout > 0 ? fanout : 1) * sizeof *peers);
    TIDE_OBJ_NEED(peers);
    while (dlb_any_rank(D->L->comm, fresh)) {
        D->gossip_rounds++;
        if (fresh) {
            int32_t n = tide_gossip_peers(D->np, D->me, fanout, &D->rng, peers);
            for (int32_t p = 0; p < n; p++)
                for (int64_t i = 0; i < D->nknown; i++) {
                    gossip_entry e = {D->known[i], D->heard[D->known[i]]};
                    dlb_buf_put(&D->out[peers[p]], &e, sizeof e);
                }
            D->gossip_messages += n;
        }
        D->learned = false;
        exchange(D, TAG_GOSSIP, on_gossip);
        for (int r = 0; r < D->np; r++)
            D->out[r].len = 0;
        fresh = D->learned;
    }
    free(peers);
}

/* The announced ranks other than this one, in the order heard. */
int64_t dlb_targets_of(const dlb *D, int32_t *targets)
{
    int64_t m = 0;
    for (int64_t i = 0; i < D->nknown; i++)
        if (D->known[i] != D->me) targets[m++] = D->known[i];
    return m;
}

/* ---------------------------------------------------------------------------------------------
 * The handshake: proposals out, answers back.
 * ------------------------------------------------------------------------------------------- */
static void on_propose(dlb *D, int src, const unsigned char *buf, size_t len)
{
    if (len % sizeof(proposal) || D->reply[src].len)
        tide_fatal("objects: unexpected proposal message of %zu bytes from rank %d", len, src);
    D->asked[D->nasked++] = src;
    for (size_t off = 0; off < len; off += sizeof(proposal)) {
        proposal p;
        memcpy(&p, buf + off, sizeof p);
        bool ok = D->packdrop ? tide_packdrop_rank_answer(&D->pd, p.load)
                              : tide_distributed_rank_answer(&D->dist, p.load);
        unsigned char a = ok;
        D->from[src] |= ok;
        dlb_buf_put(&D->reply[src], &a, 1);
    }
}

/* The handshake: see dlb.h. */
void dlb_handshake(dlb *D, answer_fn on_answer, void *ctx)
{
    D->nasked = 0;
    exchange(D, TAG_PROPOSE, on_propose);
    MPI_Request *req = malloc((size_t)(D->nasked + 1) * sizeof *req);
    TIDE_OBJ_NEED(req);
    for (int64_t i = 0; i < D->nasked; i++) {
        int r = D->asked[i];
        MPI_Isend(D->reply[r].data, tide_obj_mpi_count(D->reply[r].len, "reply"), MPI_BYTE, r,
                  TAG_REPLY, D->L->comm, &req[i]);
    }
    for (int t = 0; t < D->np; t++) {
        size_t n = D->out[t].len / sizeof(proposal);
        if (!n) continue;
        unsigned char *answers = in_room(D, n);
        MPI_Status st;
        int got;
        MPI_Recv(answers, tide_obj_mpi_count(n, "reply"), MPI_BYTE, t, TAG_REPLY, D->L->comm, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if ((size_t)got != n)
            tide_fatal("objects: rank %d answered %d of %zu proposals", t, got, n);
        for (size_t i = 0; i < n; i++) {
            proposal p;
            memcpy(&p, D->out[t].data + i * sizeof p, sizeof p);
            on_answer(D, ctx, t, &p, answers[i] != 0);
        }
        D->out[t].len = 0;
    }
    MPI_Waitall((int)D->nasked, req, MPI_STATUSES_IGNORE);
    free(req);
    for (int64_t i = 0; i < D->nasked; i++)
        D->reply[D->asked[i]].len = 0;
}

move *dlb_confirm_and_migrate(dlb *D, int64_t *nmoves, int64_t *bytes)
{
    tide_objects_layer *L = D->L;
    move *mv = malloc((size_t)(D->k + 1) * sizeof *mv);
    TIDE_OBJ_NEED(mv);
    int64_t n = 0, kept = 0;
    *bytes = 0;
    for (int64_t i = 0; i < D->k; i++) {
        tide_obj *o = L->loc[i];
        int32_t to = D->dest[i];
        if (to == L->rank) {
            L->loc[kept++] = o;
            continue;
        }
        if (o->ninbox)
            tide_fatal("objects: object %lld migrates with undelivered messages", (long long)o->id);
        tide_obj_buf *b = &D->out[to];
        TIDE_OBJ_NEED(tide_obj_buf_reserve(b, tide_objmig_size(o)));
        b->len += tide_objmig_pack(o, b->data + b->len);
        mv[n++] = (move){o->id, to};
        *bytes += (int64_t)o->size;
        tide_obj_free(o);
    }
    L->nloc = kept;
    MPI_Request *req = malloc((size_t)D->np * sizeof *req);
    TIDE_OBJ_NEED(req);
    int nreq = 0;
    for (int r = 0; r < D->np; r++)
        if (D->out[r].len)
            MPI_Isend(D->out[r].data, tide_obj_mpi_count(D->out[r].len, "migration"), MPI_BYTE, r,
                      TAG_MIGRATE, L->comm, &req[nreq++]);
    for (int r = 0; r < D->np; r++) {
        if (!D->from[r]) continue;
        MPI_Status st;
        int len;
        MPI_Probe(r, TAG_MIGRATE, L->comm, &st);
        MPI_Get_count(&st, MPI_BYTE, &len);
        unsigned char *buf = in_room(D, (size_t)len);
        MPI_Recv(buf, len, MPI_BYTE, r, TAG_MIGRATE, L->comm, MPI_STATUS_IGNORE);
        tide_objmig_adopt(L, buf, (size_t)len, NULL);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    for (int r = 0; r < D->np; r++)
        D->out[r].len = 0;
    tide_objloc_sort(L);
    *nmoves = n;
    return mv;
}

/* Every rank applies every move to its copy of the directory; then each checks that it holds
 * exactly the objects the directory gives it. */
void dlb_update_directory(tide_objects_layer *L, const move *mv, int64_t n)
{
    int mine = tide_obj_mpi_count((size_t)n * sizeof *mv, "directory update");
    int *counts = malloc((size_t)L->size * sizeof *counts),
        *displs = malloc((size_t)L->size * sizeof *displs);
    TIDE_OBJ_NEED(counts && displs);
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, L->comm);
    size_t total = 0;
    for (int r = 0; r < L->size; r++) {
        displs[r] = tide_obj_mpi_count(total, "directory update");
        total += (size_t)counts[r];
    }
    move *all = malloc(total + 1);
    TIDE_OBJ_NEED(all);
    MPI_Allgatherv(mv, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, L->comm);
    for (size_t i = 0; i < total / sizeof *all; i++) {
        int64_t k = tide_objdir_find(L, all[i].id);
        if (k < 0 || all[i].to < 0 || all[i].to >= L->size)
            tide_fatal("objects: a move names unknown object %lld or rank %lld",
                       (long long)all[i].id, (long long)all[i].to);
        L->dir_owner[k] = (int32_t)all[i].to;
    }
    for (int64_t i = 0; i < L->nloc; i++) {
        int64_t k = tide_objdir_find(L, L->loc[i]->id);
        if (k < 0 || L->dir_owner[k] != L->rank)
            tide_fatal("objects: rank %d holds object %lld that the directory places elsewhere",
                       L->rank, (long long)L->loc[i]->id);
    }
    free(all);
    free(counts);
    free(displs);
}

/* Message volume per iteration, sent by this rank's executed objects, between objects the
 * directory places on different ranks. */
