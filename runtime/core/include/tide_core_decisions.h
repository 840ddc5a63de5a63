/* The decisions of the engine core in one canonical text, so that two drivers of it can be
 * compared line by line (the equivalence test, docs/sim.md "Equivalence"): per phase and rank,
 * the prediction the feed served, and the moves of the phase-start plan. Predictions print with
 * 9 significant digits: two drivers that measured the same loads through different clocks
 * (a real one, SimGrid's) may differ in the last bits of a sum, never in these digits unless
 * they were fed different loads. Header only: libtide's test driver (C) and tide-sim (C++)
 * print through it. */
#ifndef TIDE_CORE_DECISIONS_H
#define TIDE_CORE_DECISIONS_H

#include "tide_core_feed.h"

#include <stdint.h>
#include <stdio.h>

/* "pred P R LOAD UNC SERVED PER_TASK": the served prediction of rank R for phase P (0-based), or
 * "pred P R none" before the model could serve. */
static inline void tide_decisions_pred(FILE *out, int phase, int rank, const tide_feed *f)
{
    int kind = tide_feed_served(f->load, f->source, f->model_code);
    if (kind < 0) {
        fprintf(out, "pred %d %d none\n", phase, rank);
        return;
    }
    fprintf(out, "pred %d %d %.9g %.9g %s %d\n", phase, rank, f->load, f->unc,
            tide_feed_served_name(kind), f->per_task ? 1 : 0);
}

/* "plan P R D:N ..." the tasks rank R's phase-start plan moved to each rank D (N > 0 only, in
 * rank order), then, when the plan chose the tasks (offload_selected), " tasks K:D ..." for each
 * moved task by its row K in the rank's queue. count has size entries; sel (n entries, the
 * destination of each queued task) may be NULL. */
static inline void tide_decisions_plan(FILE *out, int phase, int rank, int size, const long *count,
                                       const int32_t *sel, long n)
{
    fprintf(out, "plan %d %d", phase, rank);
    for (int d = 0; d < size; d++)
        if (count[d] > 0) fprintf(out, " %d:%ld", d, count[d]);
    if (sel) {
        fprintf(out, " tasks");
        for (long k = 0; k < n; k++)
            if (sel[k] != rank) fprintf(out, " %ld:%d", k, (int)sel[k]);
    }
    fprintf(out, "\n");
}

#endif
