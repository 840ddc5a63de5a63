#define _POSIX_C_SOURCE 200809L
/* The distributed strategies (packdrop, distributed) run as message protocols: no rank gathers
 * the loads. This test interposes the MPI gather family (MPI_Allgather, MPI_Allgatherv,
 * MPI_Gather, MPI_Gatherv, MPI_Alltoall, MPI_Alltoallv, through PMPI) and counts the bytes this
 * process receives through them during each tide_objects_iterate (the layer's collectives run on
 * Tide's comm thread; with TIDE_LB=none each phase adds one blocking allgather of the
 * application thread, the same in every iteration, so the baseline holds it).
 * An iteration without rescheduling gives the baseline (the registration's count exchange and the
 * message routing's); an iteration that reschedules may then receive, beyond the baseline, only the
 * directory update: one int per rank and 16 bytes per moved object. A centralized strategy
 * (OBJ_EXPECT=central) must receive at least 8 bytes per object more: the control that shows the
 * counter sees a gather of the loads.
 *
 * Workload: OBJ_PER_RANK objects per rank; the objects of the ranks below size / 2 sleep
 * OBJ_HEAVY_US per iteration, the others OBJ_LIGHT_US, so the first iteration is imbalanced.
 * Checks: every object lives exactly once with its state intact, no rescheduling raises the max
 * rank load (the greedy control's later ones: by at most LPT's 4/3), the first rescheduling's
 * mapping takes the max of the loads it measured below 0.85 x (its decision: the iterations after
 * it measure loads that another job on the machine stretches at random, issue 27), the protocol
 * counters are consistent, and the JSON report (TIDE_OBJECTS_STATS, if set) lists every object of
 * the last rescheduling although each rank decided only on its own. */
#include "test_util.h"
#include "tide.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

/* ---- interposed collectives: bytes received by any thread while `counting` ---- */
static atomic_bool counting;
static atomic_llong received;

static long long type_bytes(MPI_Datatype t, long long n)
{
    int size;
    PMPI_Type_size(t, &size);
    return n * size;
}

static int comm_size(MPI_Comm c)
{
    int n;
    PMPI_Comm_size(c, &n);
    return n;
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm c)
{
    if (counting) received += type_bytes(rt, (long long)rc * comm_size(c));
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, c);
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                   const int displs[], MPI_Datatype rt, MPI_Comm c)
{
    if (counting)
        for (int r = 0; r < comm_size(c); r++)
            received += type_bytes(rt, rc[r]);
    return PMPI_Allgatherv(sb, sc, st, rb, rc, displs, rt, c);
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
               MPI_Comm c)
{
    int me;
    PMPI_Comm_rank(c, &me);
    if (counting && me == root) received += type_bytes(rt, (long long)rc * comm_size(c));
    return PMPI_Gather(sb, sc, st, rb, rc, rt, root, c);
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm c)
{
    int me;
    PMPI_Comm_rank(c, &me);
    if (counting && me == root)
        for (int r = 0; r < comm_size(c); r++)
            received += type_bytes(rt, rc[r]);
    return PMPI_Gatherv(sb, sc, st, rb, rc, displs, rt, root, c);
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm c)
{
    if (counting) received += type_bytes(rt, (long long)rc * comm_size(c));
    return PMPI_Alltoall(sb, sc, st, rb, rc, rt, c);
}

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
    if (counting)
        for (int r = 0; r < comm_size(c); r++)
            received += type_bytes(rt, rc[r]);
    return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, c);
}

/* ---- the workload ---- */
typedef struct obj_state {
    int64_t id, counter;
    uint32_t sleep_us;
    unsigned char payload[200];
} obj_state;

static void iterate(void *state, size_t size, const tide_object_msg *inbox, size_t ninbox,
                    const tide_object_info *info)
{
    (void)size, (void)inbox, (void)ninbox, (void)info;
    obj_state *s = state;
    s->counter++;
    struct timespec ts = {0, (long)s->sleep_us * 1000L};
    nanosleep(&ts, NULL);
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static int count_substr(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    int c = 0;
    for (const char *p = buf; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        c++;
    return c;
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank(), size = tide_size();
    int per_rank = env_int("OBJ_PER_RANK", 24), iters = env_int("OBJ_ITERS", 6);
    int heavy = env_int("OBJ_HEAVY_US", 1000), light = env_int("OBJ_LIGHT_US", 250);
    const char *expect = getenv("OBJ_EXPECT") ? getenv("OBJ_EXPECT") : "distributed";
    bool central = strcmp(expect, "central") == 0;
    /* Bounds, relaxed by the runs that limit a strategy on purpose (OBJ_MAX_HANDSHAKE: every
     * rescheduling must run at most that many handshake rounds, e.g. TIDE_DIST_MAX_PHASES=1). */
    double max_ratio = env_int("OBJ_MAX_RATIO_PCT", 85) / 100.0;
    int max_handshake = env_int("OBJ_MAX_HANDSHAKE", 0);
    int64_t n = (int64_t)per_rank * size;

    for (int i = 0; i < per_rank; i++) {
        obj_state s = {.id = (int64_t)rank * per_rank + i,
                       .sleep_us = (uint32_t)(rank < size / 2 ? heavy : light)};
        for (size_t b = 0; b < sizeof s.payload; b++)
            s.payload[b] = (unsigned char)(s.id * 13 + (int64_t)b);
        CHECK_OK(tide_object_create(s.id, &s, sizeof s, iterate));
    }

    long long baseline = -1, worst_excess = 0;
    double first_max = 0, first_ratio = 0;
    int64_t reschedules = 0, moved_seen = 0;
    for (int it = 0; it < iters; it++) {
        tide_objects_stats before;
        CHECK_OK(tide_objects_stats_get(&before));
        received = 0;
        counting = true;
        CHECK_OK(tide_objects_iterate());
        counting = false;
        tide_objects_stats st;
        CHECK_OK(tide_objects_stats_get(&st));
        if (it == 0) first_max = st.load_max;
        if (st.reschedules == before.reschedules) {
            if (it > 0 && received > baseline) baseline = received; /* it 0 registers */
            continue;
        }
        reschedules++;
        const tide_objects_lb_record *r = &st.last;
        if (rank == 0)
            printf("iteration %d: max %.4f avg %.4f -> max %.4f, moved %lld, gossip %lld rounds "
                   "%lld messages, handshake %lld rounds, %lld proposals, %lld refused, %lld "
                   "unplaced; iteration max load %.4f\n",
                   it, r->max_before, r->avg, r->max_after, (long long)r->moved,
                   (long long)r->gossip_rounds, (long long)r->gossip_messages,
                   (long long)r->handshake_rounds, (long long)r->proposals, (long long)r->refused,
                   (long long)r->unplaced, st.load_max);
        int64_t moved = st.moved_total - before.moved_total;
        moved_seen += moved;
        if (max_handshake > 0)
            CHECK(r->handshake_rounds <= max_handshake, "%lld handshake rounds, at most %d allowed",
                  (long long)r->handshake_rounds, max_handshake);
        if (reschedules == 1) first_ratio = r->max_before > 0 ? r->max_after / r->max_before : 1;
        CHECK(r->moved == moved && r->bytes_moved == moved * (int64_t)sizeof(obj_state),
              "record: %lld moved, %lld bytes", (long long)r->moved, (long long)r->bytes_moved);
        /* The distributed protocols move load only from ranks above the target to ranks below
         * it: never a higher max. The greedy control (LPT) ignores the current mapping, so once
         * the load is balanced its remap may be a little worse than the mapping it replaces
         * (0.016886 -> 0.016890 s seen): it keeps only LPT's bound, 4/3 of the optimum, which the
         * current mapping's max is at least. */
        double bound = central && reschedules > 1 ? 4.0 / 3.0 : 1 + 1e-9;
        CHECK(r->max_after <= r->max_before * bound,
              "rescheduling at iteration %d raised the max load: %.6f -> %.6f (bound %.4fx)", it,
              r->max_before, r->max_after, bound);
        if (!central) {
            CHECK(r->proposals >= r->refused && r->refused >= 0 && r->unplaced >= 0,
                  "%lld proposals, %lld refused", (long long)r->proposals, (long long)r->refused);
            if (reschedules == 1) /* the imbalanced one */
                CHECK(r->gossip_rounds >= 1 && r->handshake_rounds >= 1 && r->proposals >= 1 &&
                          r->gossip_messages > 0 && moved > 0,
                      "the first rescheduling ran %lld gossip rounds, %lld handshake rounds, "
                      "%lld proposals and moved %lld objects",
                      (long long)r->gossip_rounds, (long long)r->handshake_rounds,
                      (long long)r->proposals, (long long)moved);
        }
        /* What this iterate received beyond an ordinary one (baseline from it 1, it >= 2 here). */
        long long excess = received - baseline;
        if (excess > worst_excess) worst_excess = excess;
        if (central)
            CHECK(excess >= 8 * n,
                  "a centralized strategy received only %lld bytes more than "
                  "an ordinary iteration: the counter misses the gather",
                  excess);
        else
            CHECK(excess <= (long long)sizeof(int) * size + 16 * moved,
                  "iteration %d received %lld bytes more than an ordinary one through gathers; "
                  "the directory update of %lld moves needs %lld",
                  it, excess, (long long)moved, (long long)sizeof(int) * size + 16 * moved);
    }
    CHECK(baseline >= 0 && reschedules >= 1, "no baseline (%lld) or no rescheduling (%lld)",
          baseline, (long long)reschedules);

    /* Every object exactly once, state intact. */
    size_t nloc;
    CHECK_OK(tide_objects_local(NULL, 0, &nloc));
    int64_t *ids = malloc((nloc + 1) * sizeof *ids);
    CHECK_OK(tide_objects_local(ids, nloc, &nloc));
    int64_t *seen = calloc((size_t)n, sizeof *seen);
    for (size_t i = 0; i < nloc; i++) {
        void *p;
        size_t sz;
        CHECK_OK(tide_object_state(ids[i], &p, &sz));
        obj_state *s = p;
        CHECK(sz == sizeof *s && s->id == ids[i] && s->id >= 0 && s->id < n, "object %lld",
              (long long)ids[i]);
        CHECK(s->counter == iters, "object %lld ran %lld times", (long long)s->id,
              (long long)s->counter);
        for (size_t b = 0; b < sizeof s->payload; b++)
            CHECK(s->payload[b] == (unsigned char)(s->id * 13 + (int64_t)b), "object %lld payload",
                  (long long)s->id);
        seen[s->id]++;
    }
    /* (The test may gather: it is not the runtime.) */
    counting = false;
    MPI_Allreduce(MPI_IN_PLACE, seen, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (int64_t k = 0; k < n; k++)
        CHECK(seen[k] == 1, "object %lld lives %lld times", (long long)k, (long long)seen[k]);

    tide_objects_stats st;
    CHECK_OK(tide_objects_stats_get(&st));
    /* The decision, on the loads it measured. */
    CHECK(first_ratio < max_ratio, "the first rescheduling took the max load only to %.2f x",
          first_ratio);
    if (rank == 0)
        printf("%s (%s): %lld reschedulings, %lld moved, gather bytes beyond an ordinary iteration "
               "at most %lld (baseline %lld), max load %.4f -> %.4f s, last: %lld gossip rounds, "
               "%lld gossip messages, %lld handshake rounds, %lld proposals, %lld refused, "
               "%lld unplaced\n",
               getenv("TIDE_GLOBAL_LB"), expect, (long long)reschedules, (long long)moved_seen,
               worst_excess, baseline, first_max, st.load_max, (long long)st.last.gossip_rounds,
               (long long)st.last.gossip_messages, (long long)st.last.handshake_rounds,
               (long long)st.last.proposals, (long long)st.last.refused,
               (long long)st.last.unplaced);
    CHECK_OK(tide_objects_finalize());
    const char *json = getenv("TIDE_OBJECTS_STATS");
    if (rank == 0 && json && *json) {
        /* Each object appears once in last_reschedule.objects, gathered from every rank. */
        int entries = count_substr(json, "\"new_owner\":");
        CHECK(entries == n, "the report lists %d objects of the last rescheduling, expected %lld",
              entries, (long long)n);
    }
    free(ids);
    free(seen);
    CHECK_OK(tide_finalize());
    return 0;
}
