/* Predictor internals shared between files; never included by users. */
#ifndef TIDE_PRED_INTERNAL_H
#define TIDE_PRED_INTERNAL_H

#include "tide_predictor.h"

extern const tide_model_ops tide_model_rank_ops;
extern const tide_model_ops tide_model_task_ops;

#endif
