/* The proactive plan an exact-prediction run of tide-sim must carry out, computed here by the
 * planners alone from the mxm preset's task counts, as proact's uniform path makes it
 * (offload/src/proact.c): tide_plan_proact, then the moves that pay for their transfer
 * (tide_plan_transfer). One line "phase from to count" per pair, in the format of tide-sim
 * --moves.
 *
 *   sim_plan_ref RANKS IMB TASKS_PER_RANK TASK_MS ITERS THREADS
 *
 * Each rank's load is the sum of its tasks' times, added up one task at a time as the
 * simulator's exact prediction does, so both see the same doubles. Transfers are taken as free
 * (bw 0, as in the first phase, before any send was measured): on the local platform a moved
 * task leaves in about 0.25 ms, so even the last of 48 arrives within 13 ms, before any
 * receiver's own work ends (75 ms and more here); a move's start and end, and so which moves
 * are kept, are then those of free moves in every phase. */
#include "preset.h"
#include "tide_plan.h"

#include <stdio.h>
#include <stdlib.h>

/* How many of the plan's moves from -> to the transfer step keeps, into kept[m]. */
static int transfer(int np, const double *load, const int64_t *n, double threads,
                    const tide_move_plan *plan, int64_t *kept)
{
    size_t count = 0;
    for (size_t m = 0; m < plan->nmoves; m++)
        count += (size_t)plan->moves[m].count;
    tide_xfer_send *sends = calloc(count + 1, sizeof *sends);
    tide_xfer_rank *rank = calloc((size_t)np, sizeof *rank);
    if (!sends || !rank) return 1;
    count = 0;
    for (size_t m = 0; m < plan->nmoves; m++) {
        const tide_move *mv = &plan->moves[m];
        for (int64_t c = 0; c < mv->count; c++)
            sends[count++] = (tide_xfer_send){mv->from, mv->to, (int64_t)m,
                                              load[mv->from] / (double)n[mv->from], 0};
    }
    for (int i = 0; i < np; i++)
        rank[i] = (tide_xfer_rank){load[i], threads, 0, 0, 0};
    if (tide_plan_transfer_order(np, sends, count) != TIDE_PLAN_OK ||
        tide_plan_transfer(np, rank, sends, count, NULL) != TIDE_PLAN_OK)
        return 1;
    for (size_t k = 0; k < count; k++)
        kept[sends[k].unit] += sends[k].arrival >= 0;
    free(sends), free(rank);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: sim_plan_ref RANKS IMB TASKS_PER_RANK TASK_MS ITERS THREADS\n");
        return 2;
    }
    int np = atoi(argv[1]), imb = atoi(argv[2]), base = atoi(argv[3]), iters = atoi(argv[5]);
    double task = atof(argv[4]) * 1e-3, threads = atof(argv[6]), target;
    int *counts = calloc((size_t)np, sizeof *counts);
    double *load = calloc((size_t)np, sizeof *load);
    int64_t *n = calloc((size_t)np, sizeof *n), *kept = calloc((size_t)np, sizeof *kept);
    tide_move *moves = calloc((size_t)np, sizeof *moves);
    if (!counts || !load || !n || !kept || !moves || np < 1 || !(threads >= 1) ||
        mxm_preset_counts(imb, np, base, counts, &target) < 0)
        return 2;
    for (int i = 0; i < np; i++) {
        n[i] = counts[i];
        for (int k = 0; k < counts[i]; k++)
            load[i] += task;
    }
    tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
    if (tide_plan_proact(np, load, n, NULL, &plan) != TIDE_PLAN_OK ||
        transfer(np, load, n, threads, &plan, kept))
        return 1;
    for (int p = 0; p < iters; p++)
        for (size_t m = 0; m < plan.nmoves; m++)
            if (kept[m] > 0)
                printf("%d %d %d %lld\n", p, moves[m].from, moves[m].to, (long long)kept[m]);
    free(counts), free(load), free(n), free(kept), free(moves);
    return 0;
}
