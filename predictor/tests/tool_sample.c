/* A tool library for the tests: a task-feature hook (n -> n^3) and a model that always predicts
 * the mean of what it was trained on, so its use is visible. */
#include "tide_predictor.h"

#include <stdio.h>
#include <stdlib.h>

static int cube(void *user, const double *app, int napp, double *extra, int max_extra)
{
    (void)user;
    if (napp < 1 || max_extra < 1) return 0;
    extra[0] = app[0] * app[0] * app[0];
    return 1;
}

typedef struct mean_model {
    double mean;
} mean_model;

static int mean_create(const tide_model_params *p, void **state)
{
    (void)p;
    *state = calloc(1, sizeof(mean_model));
    return *state ? TIDE_PRED_OK : TIDE_PRED_ERR_NOMEM;
}

static int mean_train(void *state, const double *loads, int n, char *why, size_t len)
{
    mean_model *m = state;
    if (n == 0) {
        snprintf(why, len, "no loads");
        return TIDE_PRED_DEGENERATE;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += loads[i];
    m->mean = s / n + 1000; /* marks the tool's prediction */
    return TIDE_PRED_OK;
}

static int mean_predict(void *state, const double *loads, int n, const tide_task_set *next,
                        double *out, char *why, size_t len)
{
    (void)loads, (void)n, (void)next, (void)why, (void)len;
    *out = ((mean_model *)state)->mean;
    return TIDE_PRED_OK;
}

#ifndef TOOL_BROKEN /* the broken variant lacks destroy, which the loader must reject */
static void mean_destroy(void *state)
{
    free(state);
}
#endif

static const tide_model_ops mean_ops = {
    .name = "mean1000",
    .create = mean_create,
    .train = mean_train,
    .predict = mean_predict,
#ifndef TOOL_BROKEN
    .destroy = mean_destroy,
#endif
};

int tide_tool_register(tide_tool *tool)
{
    if (tool->api_version != TIDE_TOOL_API_VERSION) return -1;
    tool->name = "sample";
    tool->task_features = cube;
    tool->model = &mean_ops;
    return 0;
}
