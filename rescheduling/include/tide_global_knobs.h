/* tide_global_knobs.h - the global strategies' knobs (TIDE_REFINE_THRESHOLD ...
 * TIDE_DIST_MAX_PHASES) as a knob table (tide_knob.h) over tide_global_params: the runtime parses
 * them into its configuration with the parser every knob goes through, and docs/config.md lists
 * them. A strategy's new parameter is a field of tide_global_params and a row in global_knobs.c. */
#ifndef TIDE_GLOBAL_KNOBS_H
#define TIDE_GLOBAL_KNOBS_H

#include "tide_global.h"
#include "tide_knob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults equal tide_global_params_default's (global_test_knobs checks it); seed is not a knob
 * (the runtime derives it). */
const tide_knob_table *tide_global_knobs(void);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_GLOBAL_KNOBS_H */
