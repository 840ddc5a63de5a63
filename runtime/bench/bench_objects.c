#define _POSIX_C_SOURCE 200809L
/* Rescheduling cost of the objects layer: for every global strategy, N objects with skewed
 * synthetic loads (object k spins (1 + k % 8) x UNIT loop turns; the first half starts on rank
 * 0, the rest round-robin) run two iterations with TIDE_LB_PERIOD 2, so one rescheduling starts
 * from the skewed mapping; repeated REPS times from scratch. Rank 0 prints one line per
 * strategy: medians of decision, gather and migration time (max over ranks), objects moved, and
 * the max/avg rank load before and after (the strategy's view of the measured loads).
 * Usage: bench_objects [N [REPS [UNIT [STATE_BYTES]]]] */
#include "micro.h"
#include "tide.h"

#include <string.h>

static volatile uint64_t sink;

static void spin(void *state, size_t size, const tide_object_msg *inbox, size_t ninbox,
                 const tide_object_info *info)
{
    (void)inbox;
    (void)ninbox;
    (void)info;
    uint64_t turns, h = 1;
    memcpy(&turns, state, sizeof turns);
    for (uint64_t i = 0; i < turns; i++)
        h = h * 6364136223846793005ull + i;
    sink = h + size;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    MICRO_CHECK_OK(tide_init(&argc, &argv));
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    uint64_t unit = argc > 3 ? strtoull(argv[3], NULL, 10) : 200;
    size_t bytes = argc > 4 ? (size_t)atoll(argv[4]) : 1024;
    if (bytes < sizeof(uint64_t)) bytes = sizeof(uint64_t);
    int rank = tide_rank(), size = tide_size();
    const char *names[] = {"greedy",  "refine",  "random",   "greedy_comm", "refine_comm",
                           "smartlb", "average", "packdrop", "distributed"};
    unsigned char *state = calloc(1, bytes);
    double *dec = malloc((size_t)reps * sizeof *dec), *gat = malloc((size_t)reps * sizeof *gat);
    double *mig = malloc((size_t)reps * sizeof *mig);
    if (rank == 0)
        printf("%-12s %5s %7s %12s %12s %12s %7s %9s %9s %7s\n", "strategy", "ranks", "objects",
               "decision_s", "gather_s", "migrate_s", "moved", "max/avg0", "max/avg1", "rounds");
    for (size_t s = 0; s < sizeof names / sizeof *names; s++) {
        tide_objects_lb_record last = {0};
        for (int r = 0; r < reps; r++) {
            for (int64_t k = 0; k < n; k++) {
                int owner = k < n / 2 ? 0 : (int)(k % size);
                if (owner != rank) continue;
                uint64_t turns = unit * (uint64_t)(1 + k % 8);
                memcpy(state, &turns, sizeof turns);
                MICRO_CHECK_OK(tide_object_create(k, state, bytes, spin));
            }
            MICRO_CHECK_OK(tide_objects_set_lb(names[s], 2));
            MICRO_CHECK_OK(tide_objects_iterate());
            MICRO_CHECK_OK(tide_objects_iterate());
            tide_objects_stats st;
            MICRO_CHECK_OK(tide_objects_stats_get(&st));
            MICRO_CHECK(st.reschedules == 1, "%s: %lld reschedulings", names[s],
                        (long long)st.reschedules);
            last = st.last;
            dec[r] = last.decision_s;
            gat[r] = last.gather_s;
            mig[r] = last.migrate_s;
            MICRO_CHECK_OK(tide_objects_finalize());
        }
        if (rank == 0)
            printf("%-12s %5d %7lld %12.6f %12.6f %12.6f %7lld %9.3f %9.3f %3lld+%-3lld\n",
                   names[s], size, (long long)n, median(dec, reps), median(gat, reps),
                   median(mig, reps), (long long)last.moved,
                   last.avg > 0 ? last.max_before / last.avg : 0,
                   last.avg > 0 ? last.max_after / last.avg : 0, (long long)last.gossip_rounds,
                   (long long)last.handshake_rounds);
    }
    free(state);
    free(dec);
    free(gat);
    free(mig);
    MICRO_CHECK_OK(tide_finalize());
    return 0;
}
