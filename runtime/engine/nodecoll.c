/* The phase collectives through shared memory, where every rank of the communicator runs on one
 * node (TIDE_PHASE_COLL, docs/internals.md "Inline phases").
 *
 * An inline phase ends with one collective: an allreduce of the phase's sums, or an allgather of
 * the records (phase.c, fused_exchange). Through Open MPI's shared-memory transport a 2-rank
 * allreduce costs 1.0-2 us on the development VM, more than Task Bench's whole `stencil_1d` step
 * under MPI; two cores that share a cache line need a few hundred nanoseconds. So every rank
 * publishes its element in its own segment of one MPI shared window and reads every other
 * rank's; a reduction then folds the elements in rank order, the same on every rank. A phase
 * through the protocol takes the same path without waiting: the comm loop publishes its status,
 * barrier or record and asks tide_nodecoll_done at its later turns, as it tests MPI's
 * nonblocking collectives (libnbc's cost 1.5-4.7 us each there).
 *
 * Each rank's segment has two slots, used by exchanges of alternate parity, each ending in the
 * number of the exchange it holds (stored after the payload, sequentially consistent and so with
 * release; loaded with acquire before the payload is read). Why two slots suffice: a rank writes
 * exchange k + 2 into the slot of exchange k only after exchange k + 1 completed on it, that is
 * after every rank published k + 1, which each did after it had read everything of exchange k. So a
 * payload a rank reads cannot change before that rank publishes its next one (tide_nodecoll_peer's
 * contract).
 *
 * A waiting rank spins briefly, then yields the core (as Open MPI does with
 * mpi_yield_when_idle), and past 50 us sleeps on a futex in the segment of the rank it waits
 * for, which that rank wakes as it publishes: a long-imbalanced phase under `none` keeps no
 * waiting rank on a core (MPI's allreduce polls all along), and a sleeper wakes as soon as the
 * kernel runs it, not up to a back-off sleep later. The wake-up
 * cannot be lost: a sleeper counts itself (sleepers) before it looks at the number a last time,
 * the publisher stores the number before it reads the count, both sequentially consistent, so
 * one of them sees the other; and a sleeper sleeps only while the publisher's generation is the
 * one it read before looking (a publication in between makes the futex return at once). */
#define _GNU_SOURCE
#include "internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { LINE = TIDE_CACHELINE, SPINS = 64, YIELD_US = 50 };

/* The last line of a rank's segment: its publications' generation (the futex word) and how many
 * ranks sleep on it. */
typedef struct wake_line {
    _Atomic uint32_t gen;
    _Atomic uint32_t sleepers;
} wake_line;

struct tide_nodecoll {
    MPI_Win win;
    int rank;
    size_t bytes; /* one rank's element */
    size_t slot;  /* bytes of one slot: the element, then the exchange's number, in whole lines */
    char **segs;  /* every rank's segment, in this process's address space */
    long joined;  /* exchanges this rank has published */
    int size;
    int seen; /* ranks below it published exchange `joined` (tide_nodecoll_done) */
};

static size_t round_up(size_t n)
{
    return (n + LINE - 1) / LINE * LINE;
}

static _Atomic long *slot_seq(const tide_nodecoll *c, int r, long k)
{
    return (_Atomic long *)(c->segs[r] + (size_t)(k & 1) * c->slot + c->slot - sizeof(long));
}

static char *slot_data(const tide_nodecoll *c, int r, long k)
{
    return c->segs[r] + (size_t)(k & 1) * c->slot;
}

static wake_line *wake_of(const tide_nodecoll *c, int r)
{
    return (wake_line *)(c->segs[r] + 2 * c->slot);
}

/* Shared (not process-private) futex operations: the word lies in memory several processes map. */
static void futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(_Atomic uint32_t *word, uint32_t seen)
{
    /* The bound only makes a lost wake-up (there is none, see above) cost 100 ms, not the job. */
    struct timespec bound = {0, 100 * 1000 * 1000};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &bound, NULL, 0);
}

int tide_nodecoll_create(MPI_Comm comm, size_t bytes, tide_nodecoll **out)
{
    *out = NULL;
    int rank, size, node_rank, node_size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    /* Every rank of comm is on this node, numbered as in comm: the same answer on every rank. */
    int whole = node_size == size && node_rank == rank, all_whole;
    MPI_Allreduce(&whole, &all_whole, 1, MPI_INT, MPI_MIN, comm);
    if (!all_whole) {
        MPI_Comm_free(&node);
        return TIDE_OK;
    }
    tide_nodecoll *c = calloc(1, sizeof *c);
    char **segs = calloc((size_t)size, sizeof *segs);
    /* The number in the payload's last line where it fits: a reader's first miss brings both. */
    const size_t slot = round_up(bytes + sizeof(long));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each segment on its rank's memory */
    /* An MPI without shared windows (no osc/sm component) refuses here: one line saying so, on
     * every rank, instead of MPI's abort. */
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    MPI_Win win = MPI_WIN_NULL;
    char *mine = NULL;
    int rc = MPI_Win_allocate_shared((MPI_Aint)(2 * slot + LINE), 1, info, node, &mine, &win);
    MPI_Info_free(&info);
    enum { MEMORY = 1, WINDOW = 2 };
    int ok = (c && segs ? MEMORY : 0) | (rc == MPI_SUCCESS ? WINDOW : 0), all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_BAND, node);
    if (all_ok != (MEMORY | WINDOW)) {
        char why[MPI_MAX_ERROR_STRING] = "on another rank";
        int len;
        if (rc == MPI_SUCCESS)
            MPI_Win_free(&win);
        else
            MPI_Error_string(rc, why, &len);
        free(c);
        free(segs);
        MPI_Comm_free(&node);
        if (!(all_ok & MEMORY))
            return tide_fail(TIDE_ERR_NOMEM, "out of memory for the phase collective");
        return tide_fail(TIDE_ERR_CONFIG,
                         "TIDE_PHASE_COLL=auto: MPI_Win_allocate_shared failed (%s); set "
                         "TIDE_PHASE_COLL=mpi to agree phases through MPI's collectives",
                         why);
    }
    *c = (tide_nodecoll){
        .win = win, .rank = rank, .bytes = bytes, .slot = slot, .segs = segs, .size = size};
    for (int r = 0; r < size; r++) {
        MPI_Aint len;
        int unit;
        MPI_Win_shared_query(c->win, r, &len, &unit, &c->segs[r]);
    }
    /* No exchange yet: both numbers 0, below the first exchange's (1) and the second's (2), in
     * place before any rank may look. */
    memset(mine, 0, 2 * c->slot + LINE);
    MPI_Barrier(node);
    MPI_Comm_free(&node);
    *out = c;
    return TIDE_OK;
}

void tide_nodecoll_publish(tide_nodecoll *c, const void *mine, size_t bytes)
{
    if (bytes > c->bytes) tide_fatal("internal: a %zu-byte element of %zu", bytes, c->bytes);
    if (bytes) memcpy(slot_data(c, c->rank, c->joined + 1), mine, bytes);
    c->joined++;
    c->seen = 0;
    atomic_store(slot_seq(c, c->rank, c->joined), c->joined);
    wake_line *w = wake_of(c, c->rank);
    atomic_fetch_add(&w->gen, 1);
    if (atomic_load(&w->sleepers)) futex_wake_all(&w->gen);
}

static bool published(_Atomic long *seq, long k)
{
    return atomic_load_explicit(seq, memory_order_acquire) == k;
}

/* Until rank r's number is k: spin, yield, then sleep on r's generation. */
static void wait_published(const tide_nodecoll *c, int r, long k)
{
    _Atomic long *seq = slot_seq(c, r, k);
    for (int i = 0; i < SPINS; i++) {
        if (published(seq, k)) return;
        __builtin_ia32_pause();
    }
    double start = tide_now();
    while (!published(seq, k) && tide_now() - start < 1e-6 * YIELD_US)
        sched_yield();
    wake_line *w = wake_of(c, r);
    while (!published(seq, k)) {
        uint32_t seen = atomic_load(&w->gen);
        atomic_fetch_add(&w->sleepers, 1);
        if (atomic_load(seq) != k) futex_wait(&w->gen, seen);
        atomic_fetch_sub(&w->sleepers, 1);
    }
}

bool tide_nodecoll_done(tide_nodecoll *c)
{
    for (; c->seen < c->size; c->seen++)
        if (c->seen != c->rank && !published(slot_seq(c, c->seen, c->joined), c->joined))
            return false;
    return true;
}

const void *tide_nodecoll_peer(tide_nodecoll *c, int r)
{
    if (r != c->rank) wait_published(c, r, c->joined);
    return slot_data(c, r, c->joined);
}

void tide_nodecoll_destroy(tide_nodecoll *c)
{
    if (!c) return;
    MPI_Win_free(&c->win);
    free(c->segs);
    free(c);
}
