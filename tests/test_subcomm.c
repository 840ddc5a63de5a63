/* Tide on sub-communicators (tide_init_comm): MPI_COMM_WORLD is split into two halves (5 ranks:
 * 3 + 2) and each half runs its own Tide, with a different number of phases and its own object
 * ids. Within each half rank 0 has most of the tasks and TIDE_LB (random in the test) moves some:
 * every task must run on a rank of its own half, give the right result, and some must have
 * moved; the objects layer on the same communicator must keep every object (ids repeat across
 * halves) inside its half, deliver every message, and migrate objects under TIDE_GLOBAL_LB. */
#include "test_util.h"
#include "tide_mpi.h"

#include <mpi.h>
#include <string.h>

enum { N = 512, OBJS = 12 };

static int world_rank; /* read by tasks: where a task ran */

static void work(void **args) /* IN x[N], OUT y[N], OUT where */
{
    const double *x = args[0];
    double *y = args[1];
    for (int i = 0; i < N; i++)
        y[i] = 3 * x[i] + 1;
    *(int *)args[2] = world_rank;
}

/* An object: counts its iterations and the messages from its ring predecessor; the first
 * objects are heavier, so that the global strategy has something to move. */
typedef struct obj {
    int64_t id, iterations, received, wrong;
    int last_world_rank;
} obj;

static void iterate(void *state, size_t size, const tide_object_msg *inbox, size_t n,
                    const tide_object_info *info)
{
    obj *o = state;
    (void)size;
    for (size_t i = 0; i < n; i++)
        if (inbox[i].from == (o->id + OBJS - 1) % OBJS && inbox[i].size == sizeof(int64_t))
            o->received++;
        else
            o->wrong++;
    volatile double s = 0;
    for (long i = 0; i < (o->id < 3 ? 400000 : 20000); i++)
        s += (double)i;
    o->iterations++;
    o->last_world_rank = world_rank;
    int64_t payload = info->iteration;
    tide_object_send(o->id, (o->id + 1) % OBJS, &payload, sizeof payload);
}

/* Every world rank of a task's or object's executor must lie in the caller's half. */
static int half_of(int wrank, int world_size)
{
    return wrank < (world_size + 1) / 2 ? 0 : 1;
}

static void run_tasks(int color, int world_size, int phases)
{
    static double x[64][N], y[64][N];
    static int where[64];
    int64_t moved = 0;
    for (int p = 0; p < phases; p++) {
        int ntasks = tide_rank() == 0 ? 64 : 8;
        for (int t = 0; t < ntasks; t++) {
            for (int i = 0; i < N; i++)
                x[t][i] = p + t + i * 1e-3;
            where[t] = -1;
            tide_arg a[] = {{x[t], sizeof x[t], TIDE_IN},
                            {y[t], sizeof y[t], TIDE_OUT},
                            {&where[t], sizeof where[t], TIDE_OUT}};
            tide_task *task;
            CHECK_OK(tide_task_create(&task, work, 3, a));
            CHECK_OK(tide_task_submit(task));
        }
        CHECK_OK(tide_taskwait());
        for (int t = 0; t < ntasks; t++) {
            for (int i = 0; i < N; i++)
                CHECK(y[t][i] == 3 * x[t][i] + 1, "phase %d task %d: wrong result", p, t);
            CHECK(where[t] >= 0 && half_of(where[t], world_size) == color,
                  "half %d: task %d ran on world rank %d, outside the half", color, t, where[t]);
        }
        tide_phase_stats st;
        CHECK_OK(tide_stats_last_phase(&st));
        CHECK(st.tasks == 64 + 8 * (tide_size() - 1), "half %d: phase counts %lld tasks", color,
              (long long)st.tasks);
        moved += st.offloaded;
    }
    CHECK(moved > 0, "half %d: no task moved in %d phases", color, phases);
}

static void run_objects(int color, int world_size, int iterations)
{
    for (int64_t id = tide_rank(); id < OBJS; id += tide_size())
        if (tide_rank() == 0 || id >= 3) { /* rank 0 also takes the heavy ones */
            obj o = {.id = id};
            CHECK_OK(tide_object_create(id, &o, sizeof o, iterate));
        }
    if (tide_rank() == 0)
        for (int64_t id = 1; id < 3; id++)
            if (id % tide_size() != 0) {
                obj o = {.id = id};
                CHECK_OK(tide_object_create(id, &o, sizeof o, iterate));
            }
    for (int it = 0; it < iterations; it++)
        CHECK_OK(tide_objects_iterate());
    int64_t ids[OBJS];
    size_t n = 0;
    CHECK_OK(tide_objects_local(ids, OBJS, &n));
    for (size_t i = 0; i < n; i++) {
        void *state;
        size_t size;
        CHECK_OK(tide_object_state(ids[i], &state, &size));
        obj *o = state;
        CHECK(o->iterations == iterations, "object %lld ran %lld times", (long long)o->id,
              (long long)o->iterations);
        CHECK(o->received == iterations - 1 && o->wrong == 0,
              "object %lld: %lld messages from its predecessor, %lld wrong", (long long)o->id,
              (long long)o->received, (long long)o->wrong);
        CHECK(half_of(o->last_world_rank, world_size) == color, "object ran outside its half");
    }
    tide_objects_stats st;
    CHECK_OK(tide_objects_stats_get(&st));
    CHECK(st.objects == OBJS, "half %d: %lld objects registered", color, (long long)st.objects);
    CHECK(st.moved_total > 0, "half %d: no object migrated", color);
    CHECK_OK(tide_objects_finalize());
}

int main(int argc, char **argv)
{
    int provided, world_size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    CHECK(world_size >= 4, "run with at least 4 ranks");
    int color = half_of(world_rank, world_size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &half);
    CHECK(tide_init_comm(MPI_COMM_NULL, NULL, NULL) == TIDE_ERR_INVALID, "MPI_COMM_NULL refused");
    CHECK_OK(tide_init_comm(half, &argc, &argv));
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    CHECK(tide_rank() == hrank && tide_size() == hsize, "rank %d/%d, the half says %d/%d",
          tide_rank(), tide_size(), hrank, hsize);
    MPI_Comm_free(&half); /* Tide holds its own duplicate */
    run_tasks(color, world_size, color == 0 ? 4 : 7);
    run_objects(color, world_size, color == 0 ? 6 : 9);
    CHECK_OK(tide_finalize());
    /* MPI is the application's: still usable after tide_finalize. */
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == world_size, "MPI_COMM_WORLD after tide_finalize");
    MPI_Finalize();
    if (world_rank == 0) printf("sub-communicators: all checks passed\n");
    return 0;
}
