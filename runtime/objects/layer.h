/* Internal structures of the persistent-objects layer (objects*.c, docs/objects.md).
 *
 * Every rank keeps a replicated directory of all objects (id, owner, state size), sorted by id:
 * it changes only between iterations, identically everywhere (registration is an allgather,
 * migration follows a mapping every rank computed from the same bytes), so a worker thread can
 * look up a message's target without locking and every rank routes alike. */
#ifndef TIDE_OBJECTS_LAYER_H
#define TIDE_OBJECTS_LAYER_H

#include "internal.h"
#include "tide_global.h"

/* A message record, in outboxes, on the wire and in inboxes: this header, then `size` bytes,
 * then zero padding to a multiple of 8. */
typedef struct tide_obj_msghdr {
    int64_t from, to;
    uint32_t seq; /* the sender's count of messages within its iteration: delivery order */
    uint32_t pad;
    uint64_t size;
} tide_obj_msghdr;

#define TIDE_OBJ_PAD8(x) (((x) + 7u) & ~(size_t)7u)
#define TIDE_OBJ_REC(size) (sizeof(tide_obj_msghdr) + TIDE_OBJ_PAD8(size))

typedef struct tide_obj_buf {
    unsigned char *data;
    size_t len, cap;
} tide_obj_buf;

/* The OUT argument of an object's task: what the copy whose result is kept measured, and
 * where that copy ran (once.c). */
typedef struct tide_obj_ran {
    double time;  /* execution time of the iteration function */
    int32_t rank; /* the rank that ran it; -1 before the task completed */
    int32_t pad;
} tide_obj_ran;

typedef struct tide_obj {
    int64_t id;
    size_t size;
    unsigned char *state;
    tide_object_fn fn;  /* its address in this process */
    tide_fnid fnid;     /* its portable identity: how it travels */
    tide_obj_ran ran;   /* OUT of the latest iteration's task */
    double load_sum;    /* execution time since the last rescheduling */
    int64_t load_n;     /* iterations it ran since then */
    tide_obj_buf inbox; /* messages for its next iteration */
    uint64_t ninbox;
    tide_obj_buf running; /* the inbox its running task reads (sorted) */
    uint64_t nrunning;
} tide_obj;

typedef struct tide_obj_edge {
    int64_t from, to;
    double bytes;
} tide_obj_edge;

/* One object in the report of a rescheduling. */
typedef struct tide_obj_report {
    int64_t id;
    double load;
    int32_t owner, new_owner;
} tide_obj_report;

typedef struct tide_objects_layer {
    bool started; /* the collective part exists (communicator) */
    bool broken;  /* a collective check failed: every later call reports it */
    char broken_msg[400];
    MPI_Comm comm;
    int rank, size;

    /* Directory, identical on every rank, sorted by id. */
    int64_t ndir, dir_cap;
    int64_t *dir_id, *dir_size;
    int32_t *dir_owner;

    /* This rank's objects sorted by id, and those created since the last iterate. */
    tide_obj **loc;
    int64_t nloc, loc_cap;
    tide_obj **pending;
    int64_t npending, pending_cap;
    pthread_mutex_t pending_lock;

    /* Messages sent by the object tasks executed here, and the volumes since the last
     * rescheduling (sorted by (from, to), one entry per pair). */
    pthread_mutex_t out_lock;
    tide_obj_buf out;
    int64_t nout;
    tide_obj_edge *edges;
    int64_t nedges, edges_cap;
    int64_t window; /* iterations since the last rescheduling */
    /* Other ranks' objects whose task ran here this iteration (under out_lock): their messages
     * count only if that copy's result was kept (once.c). */
    int64_t *ran_here;
    int64_t nran_here, ran_here_cap;

    const tide_global_strategy *lb;
    int period;
    int64_t iteration;

    /* Statistics. */
    tide_objects_stats st;
    tide_objects_lb_record *hist;
    int64_t nhist, hist_cap;
    double *iter_load; /* per iteration: max, avg rank load */
    int64_t iter_cap;
    /* The latest rescheduling, for the JSON report: this rank's objects and message volumes
     * (every rank's, sorted by id, on rank 0 after tide_objstats_gather_last). */
    int64_t last_nobj, last_nedges;
    tide_obj_report *last_obj;
    tide_obj_edge *last_edges;
} tide_objects_layer;

/* objects_dir.c: the directory and the local table. */
int64_t tide_objdir_find(const tide_objects_layer *L, int64_t id); /* index or -1 */
tide_obj *tide_objloc_find(const tide_objects_layer *L, int64_t id);
/* Registers the objects created since the last iterate on every rank (collective). On a
 * duplicate id every rank fails alike and the layer is marked broken. */
int tide_objdir_register(tide_objects_layer *L);
void tide_objloc_sort(tide_objects_layer *L);
void tide_obj_free(tide_obj *o);
bool tide_obj_buf_reserve(tide_obj_buf *b, size_t extra);
/* n as an MPI count; aborts with a message naming `what` when it exceeds INT_MAX. */
int tide_obj_mpi_count(size_t n, const char *what);
/* coll.c: the layer's exchanges. alltoallv of bytes: scount/sdispl given, rcount/rdispl and the
 * received total filled; returns the received bytes (caller frees). allgatherv of len bytes from
 * every rank: counts/displs filled; returns all ranks' bytes in rank order (caller frees). */
unsigned char *tide_objcoll_alltoallv(tide_objects_layer *L, const unsigned char *send,
                                      const int *scount, const int *sdispl, int *rcount,
                                      int *rdispl, size_t *rtotal, const char *what);
void *tide_objcoll_allgatherv(tide_objects_layer *L, const void *mine, size_t len, int *counts,
                              int *displs, size_t *total, const char *what);
/* Grows an array of elements of `elem` bytes so that it holds `need`; false when out of memory. */
bool tide_obj_grow(void **arr, int64_t *cap, int64_t need, size_t elem);

/* objects_route.c: messages. */
/* Folds the outbox into the communication volumes. */
void tide_objmsg_count(tide_objects_layer *L);
/* Sends every outbox message to its target's current owner and appends it to the inbox. */
void tide_objmsg_route(tide_objects_layer *L, int64_t *delivered, int64_t *bytes);
/* Gives o's inbox to its next task, sorted by (from, seq). */
void tide_objmsg_take_inbox(tide_obj *o);

/* once.c: exactly one copy's messages (replicated object tasks). */
/* Worker: the task of another rank's object `id` ran on this rank. */
void tide_objonce_ran_here(tide_objects_layer *L, int64_t id);
/* Collective, after the iteration's taskwait and before its messages are counted: drops from the
 * outbox the messages of copies whose result was not kept. */
void tide_objonce_settle(tide_objects_layer *L);

/* objects_lb.c: one rescheduling (collective). */
void tide_objlb_run(tide_objects_layer *L, uint64_t seed);
/* Records a finished rescheduling and starts the next measurement window. */
void tide_objlb_finish(tide_objects_layer *L, const tide_objects_lb_record *rec);
/* Migration records: an object's identity and state, as it travels. */
size_t tide_objmig_size(const tide_obj *o);
size_t tide_objmig_pack(const tide_obj *o, unsigned char *dst); /* returns tide_objmig_size */
/* Adopts every object of a received buffer into the local table (unsorted: sort after).
 * new_owner (directory order, may be NULL) must name this rank for each of them. */
void tide_objmig_adopt(tide_objects_layer *L, const unsigned char *buf, size_t len,
                       const int32_t *new_owner);

/* objects_dlb.c: packdrop and distributed as message protocols between the ranks (collective):
 * no rank learns the loads of all objects or ranks. */
void tide_objdlb_run(tide_objects_layer *L, uint64_t seed);

/* objects_stats.c */
void tide_objstats_iteration(tide_objects_layer *L, double load_self, int64_t delivered,
                             int64_t bytes);
/* Writes the TIDE_OBJECTS_STATS document to f (the caller checks the writes). */
void tide_objstats_write_json(const tide_objects_layer *L, FILE *f);
/* Keeps this rank's part of a rescheduling before its objects migrate: load[i] and dest[i] (new
 * owner) of L->loc[i], and the message volumes of the window. */
void tide_objstats_keep_last(tide_objects_layer *L, const double *load, const int32_t *dest);
/* Collective: gathers every rank's part of the last rescheduling on rank 0. */
void tide_objstats_gather_last(tide_objects_layer *L);
/* Frees the kept input of the latest rescheduling (the report's last_reschedule). */
void tide_objstats_free_last(tide_objects_layer *L);
void tide_objstats_print(const tide_objects_layer *L, FILE *out);

/* A failed allocation inside a collective step cannot be reported to the other ranks. */
#define TIDE_OBJ_NEED(p)                                                                           \
    do {                                                                                           \
        if (!(p)) tide_fatal("objects: out of memory (%s:%d)", __FILE__, __LINE__);                \
    } while (0)

#endif
