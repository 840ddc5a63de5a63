/* tide_predictor_knobs.h - the TIDE_PRED_* knobs as a knob table (tide_knob.h) over
 * tide_model_params: the rows tide_model_params_defaults and tide_model_params_set read, that
 * libtide lists among its knobs, and that tide-predict takes its options (`option`) from. */
#ifndef TIDE_PREDICTOR_KNOBS_H
#define TIDE_PREDICTOR_KNOBS_H

#include "tide_knob.h"
#include "tide_predictor.h"

#ifdef __cplusplus
extern "C" {
#endif

const tide_knob_table *tide_model_params_knobs(void);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_PREDICTOR_KNOBS_H */
