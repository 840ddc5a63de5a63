/* The per-iteration series and the rescheduling summary of cbench's JSON summary (schema
 * cbench-1, docs/cbench.md), written by every application of the objects layer (cbench, leanmd)
 * so that the same readers take all of them. Each caller writes its own "config" first. */
#ifndef TIDE_APPS_OBJECTS_JSON_H
#define TIDE_APPS_OBJECTS_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <tide.h>

/* The iterations' series: "iteration_s", "load_max_s", "load_avg_s", n values each. */
void objects_json_series(FILE *f, const double *iter_s, const double *load_max,
                         const double *load_avg, int64_t n);

/* "summary" (the run's totals and its failed checks) and "reschedules" (one record per round),
 * then the document's closing brace. */
void objects_json_tail(FILE *f, const tide_objects_stats *s, int64_t failures,
                       const tide_objects_lb_record *rounds, int64_t nrounds);

#endif
