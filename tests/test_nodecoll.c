/* The phase collective through shared memory (runtime/engine/nodecoll.c): every rank reads every
 * rank's element of the same exchange, exchange after exchange, while ranks race ahead of each
 * other and lag behind (the two slots a rank alternates between must never be overwritten while
 * another rank still reads one), on the whole communicator and on a split one whose ranks are
 * numbered anew. Every other exchange a rank polls tide_nodecoll_done instead of waiting in
 * tide_nodecoll_peer, as the comm loop does (once it says done, every element must be this
 * exchange's), and every third one publishes fewer words than the element holds. Every 64
 * exchanges MPI_Allgather of the same elements must agree.
 *
 *   mpiexec -n 4 test_nodecoll [exchanges]   (exit 0: every element right) */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WORDS = 37 }; /* an element that does not fill whole cache lines */

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static long value(long k, int r, int i)
{
    return k * 1000003 + r * 1009 + i;
}

static int run(MPI_Comm comm, long exchanges, unsigned seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    tide_nodecoll *c;
    if (tide_nodecoll_create(comm, WORDS * sizeof(long), &c) != TIDE_OK || !c) {
        fprintf(stderr, "rank %d: no shared-memory collective on one node\n", rank);
        return 1;
    }
    long *ref = malloc((size_t)size * WORDS * sizeof *ref), mine[WORDS];
    int bad = 0;
    srand(seed + (unsigned)rank);
    for (long k = 1; k <= exchanges && !bad; k++) {
        for (int i = 0; i < WORDS; i++)
            mine[i] = value(k, rank, i);
        /* One rank in turn arrives late, so that the others publish the next exchange (into
         * their other slot) while it still reads this one. */
        if (k % 97 == (long)rank) pause_us(200);
        int words = k % 3 == 0 ? WORDS / 2 : WORDS;
        tide_nodecoll_publish(c, mine, (size_t)words * sizeof *mine);
        if (k % 2 == 0)
            while (!tide_nodecoll_done(c))
                if (rand() % 8 == 0) pause_us(1);
        for (int n = 0; n < size && !bad; n++) {
            int r = (rank + n) % size;
            const long *e = tide_nodecoll_peer(c, r);
            if (rand() % 50 == 0) pause_us(50); /* a slow reader between two peers */
            for (int i = 0; i < words; i++)
                if (e[i] != value(k, r, i)) {
                    fprintf(stderr, "rank %d, exchange %ld: rank %d's word %d is %ld, not %ld\n",
                            rank, k, r, i, e[i], value(k, r, i));
                    bad = 1;
                    break;
                }
        }
        if (!bad && k % 64 == 0) {
            MPI_Allgather(mine, WORDS, MPI_LONG, ref, WORDS, MPI_LONG, comm);
            for (int r = 0; r < size; r++)
                if (ref[(size_t)r * WORDS] != value(k, r, 0)) bad = 1;
        }
    }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    tide_nodecoll_destroy(c);
    free(ref);
    return any;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    long exchanges = argc > 1 ? atol(argv[1]) : 3000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = run(MPI_COMM_WORLD, exchanges, 1);
    /* Odd and even ranks apart: each half numbered from 0, each its own window. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    bad |= run(half, exchanges / 2, 7);
    MPI_Comm_free(&half);
    if (rank == 0) printf("%s\n", bad ? "FAILED" : "every element of every exchange right");
    MPI_Finalize();
    return bad;
}
