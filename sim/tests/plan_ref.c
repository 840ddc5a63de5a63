/* The proactive plan an exact-prediction run of tide-sim must carry out, computed here by the
 * planner alone (tide_plan_proact) from the mxm preset's task counts: one line "phase from to
 * count" per move, in the format of tide-sim --moves.
 *
 *   sim_plan_ref RANKS IMB TASKS_PER_RANK TASK_MS ITERS
 *
 * Each rank's load is the sum of its tasks' times, added up one task at a time as the
 * simulator's exact prediction does, so both see the same doubles. */
#include "preset.h"
#include "tide_plan.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: sim_plan_ref RANKS IMB TASKS_PER_RANK TASK_MS ITERS\n");
        return 2;
    }
    int np = atoi(argv[1]), imb = atoi(argv[2]), base = atoi(argv[3]), iters = atoi(argv[5]);
    double task = atof(argv[4]) * 1e-3, target;
    int *counts = calloc((size_t)np, sizeof *counts);
    double *load = calloc((size_t)np, sizeof *load);
    int64_t *n = calloc((size_t)np, sizeof *n);
    tide_move *moves = calloc((size_t)np, sizeof *moves);
    if (!counts || !load || !n || !moves || np < 1 ||
        mxm_preset_counts(imb, np, base, counts, &target) < 0)
        return 2;
    for (int i = 0; i < np; i++) {
        n[i] = counts[i];
        for (int k = 0; k < counts[i]; k++)
            load[i] += task;
    }
    tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
    if (tide_plan_proact(np, load, n, NULL, &plan) != TIDE_PLAN_OK) return 1;
    for (int p = 0; p < iters; p++)
        for (size_t m = 0; m < plan.nmoves; m++)
            printf("%d %d %d %lld\n", p, moves[m].from, moves[m].to, (long long)moves[m].count);
    free(counts), free(load), free(n), free(moves);
    return 0;
}
