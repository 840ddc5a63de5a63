/* A tool library loaded with tide_tool_load replaces the model and adds task features; broken
 * or missing libraries give one error line naming TIDE_TOOL. argv: good.so broken.so */
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: test_tool GOOD.so BROKEN.so");
    tide_tool tool;
    char err[512];
    CHECK(tide_tool_load(argv[1], &tool, err, sizeof err) == 0, "%s", err);
    CHECK(tool.model && strcmp(tool.model->name, "mean1000") == 0, "the tool's model");
    double app = 4, extra[2];
    CHECK(tool.task_features(tool.user, &app, 1, extra, 2) == 1 && extra[0] == 64, "n^3 hook");

    tide_model_params p;
    tide_model_params_defaults(&p);
    /* The tool's model as it is: neither the guard nor the baselines replace its 1002. */
    p.select = TIDE_SELECT_MODEL;
    p.guard = 0;
    tide_model *m = tide_model_create_ops(tool.model, &p, err, sizeof err);
    CHECK(m, "%s", err);
    double pred;
    for (int i = 0; i < p.train; i++)
        tide_model_observe_phase(m, 2.0, 0, NULL, NULL, 0);
    CHECK(tide_model_predict(m, &pred) == 0 && pred == 1002.0, "tool prediction %g", pred);
    CHECK(strcmp(tide_model_name(m), "mean1000") == 0, "name");
    /* The model refits after every phase until its history is full (those fits are not
     * retrains); the wrapper's adaptivity applies to tool models too: 1002 vs 2 is a huge error,
     * scored since the first fit, so once the last fit has been judged on 3 phases the median
     * error calls for a retrain; the next one waits twice as long, as the retrain did not help. */
    CHECK(tide_model_retrains(m) == 0, "retrained while the history filled");
    for (int i = 0; i < 2; i++)
        tide_model_observe_phase(m, 2.0, 0, NULL, NULL, 0);
    CHECK(tide_model_retrains(m) == 0, "retrained before the last fit was judged");
    tide_model_observe_phase(m, 2.0, 0, NULL, NULL, 0);
    CHECK(tide_model_retrains(m) == 1, "retrained the tool model");
    for (int i = 0; i < 5; i++)
        tide_model_observe_phase(m, 2.0, 0, NULL, NULL, 0);
    CHECK(tide_model_retrains(m) == 1, "retrained again before 6 phases");
    tide_model_observe_phase(m, 2.0, 0, NULL, NULL, 0);
    CHECK(tide_model_retrains(m) == 2, "no second retrain after 6 phases");
    tide_model_destroy(m);
    tide_tool_unload(&tool);
    CHECK(tool.dl_handle == NULL && tool.model == NULL, "unloaded");

    CHECK(tide_tool_load(argv[2], &tool, err, sizeof err) == TIDE_PRED_ERR_TOOL, "broken accepted");
    CHECK(strstr(err, "TIDE_TOOL=") && strstr(err, "destroy"), "%s", err);
    printf("ok: %s\n", err);
    CHECK(tide_tool_load("/nonexistent/tool.so", &tool, err, sizeof err) == TIDE_PRED_ERR_TOOL,
          "missing accepted");
    CHECK(strstr(err, "TIDE_TOOL='/nonexistent/tool.so'"), "%s", err);
    printf("ok: %s\n", err);
    return 0;
}
