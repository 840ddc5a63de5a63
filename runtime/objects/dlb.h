/* The machinery of the distributed rescheduling protocols (dlb_proto.c), shared with the two
 * strategies that run on it (dlb.c): the per-round state, gossip, the handshake, migration. */
#ifndef TIDE_OBJECTS_DLB_H
#define TIDE_OBJECTS_DLB_H

#include "layer.h"
#include "tide_global_rank.h"

enum { TAG_GOSSIP = 7101, TAG_PROPOSE = 7102, TAG_REPLY = 7103, TAG_MIGRATE = 7104 };

/* What a gossip message lists: a rank that announced itself and the load it announced. */
typedef struct gossip_entry {
    int64_t rank;
    double load;
} gossip_entry;

/* One proposal: the proposer's handle (a batch or an object index) and the load offered. */
typedef struct proposal {
    int64_t handle;
    double load;
} proposal;

typedef struct dlb {
    tide_objects_layer *L;
    int np, me;
    bool packdrop;
    tide_packdrop_rank pd;      /* packdrop: this rank's side of the protocol */
    tide_distributed_rank dist; /* distributed: this rank's side of the protocol */

    int64_t k;         /* this rank's objects when the round began: L->loc[0 .. k) */
    double *w;         /* their loads (mean execution time over the window) */
    int32_t *dest;     /* new owner of each (this rank while it stays) */
    double load;       /* this rank's load: before the protocol, then after it */
    uint64_t rng;      /* this rank's stream */
    tide_obj_buf *out; /* np: what this rank sends each rank in the current exchange */
    tide_obj_buf in;   /* the message being received (reused) */

    /* Gossip: what this rank heard. */
    double *heard;  /* np: announced load, NAN when not heard of */
    int32_t *known; /* the ranks heard of, in the order heard */
    int64_t nknown;
    bool learned; /* something new in the current round */

    /* Receiver side of the handshake. */
    tide_obj_buf *reply; /* np: the answers to the current round's proposals */
    int32_t *asked;      /* ranks that proposed in the current round */
    int64_t nasked;
    bool *from; /* np: accepted something from that rank: its states will come */

    /* Counters (this rank's share). */
    int64_t gossip_rounds, handshake_rounds, gossip_messages, proposals, refused, unplaced;
} dlb;

typedef void (*recv_fn)(dlb *D, int src, const unsigned char *buf, size_t len);
/* Sends this round's D->out proposals, answers the ones that arrive, and calls on_answer for
 * each of this rank's proposals with the target's verdict, in the order they were written. */
typedef void (*answer_fn)(dlb *D, void *ctx, int target, const proposal *p, bool accepted);

typedef struct move {
    int64_t id, to;
} move;

void dlb_buf_put(tide_obj_buf *b, const void *p, size_t n);
/* Whether any rank says `mine` (an allreduce of one integer). */
bool dlb_any_rank(MPI_Comm comm, bool mine);
/* Gossip rounds until quiescence: announced ranks and their loads spread with this fanout. */
void dlb_gossip(dlb *D, bool announce, int32_t fanout);
/* The ranks heard of, as handshake targets; returns how many. */
int64_t dlb_targets_of(const dlb *D, int32_t *targets);
void dlb_handshake(dlb *D, answer_fn on_answer, void *ctx);
/* Sends every object with a destination there (one message per receiver), adopts the objects
 * of every rank this one accepted from, and returns the moves (id, new owner) this rank made. */
move *dlb_confirm_and_migrate(dlb *D, int64_t *nmoves, int64_t *bytes);
void dlb_update_directory(tide_objects_layer *L, const move *mv, int64_t n);

#endif
