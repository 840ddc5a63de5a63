/* tide-predict on a CSV written here prints exactly the predictions the library makes when fed
 * the same loads in the same order, and the same pooled MSE/MAPE. argv: path of tide-predict. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>
#include <unistd.h>

enum { RANKS = 3, PHASES = 60 };

static double load[RANKS][PHASES], size[RANKS][PHASES];

static void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f, "open %s", path);
    fprintf(f, "phase,rank,load,size\n");
    for (int ph = 0; ph < PHASES; ph++)
        for (int r = 0; r < RANKS; r++)
            fprintf(f, "%d,%d,%.17g,%.17g\n", ph, r, load[r][ph], size[r][ph]);
    fclose(f);
}

/* Runs the CLI and returns its predictions in row order (NaN for null) and the overall MAPE. */
static int run_cli(const char *exe, const char *opts, const char *csv, double *pred, double *mape)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s --json %s", exe, opts, csv);
    FILE *p = popen(cmd, "r");
    CHECK(p, "popen");
    static char out[1 << 20];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    CHECK(pclose(p) == 0, "%s failed", cmd);
    char *s = strstr(out, "],\"mape\":");
    CHECK(s && sscanf(s, "],\"mape\":%lf", mape) == 1, "overall mape in %.200s", out);
    int k = 0;
    for (s = strstr(out, "\"pred\":"); s; s = strstr(s + 1, "\"pred\":")) {
        s += 7;
        pred[k++] = strncmp(s, "null", 4) == 0 ? NAN : strtod(s, NULL);
    }
    return k;
}

/* first: the first phase with a prediction. */
static void compare(const char *exe, const char *csv, const char *opts, tide_model_params p,
                    int first)
{
    static double lib[RANKS * PHASES], cli[RANKS * PHASES];
    tide_model *m[RANKS];
    char err[256];
    for (int r = 0; r < RANKS; r++)
        CHECK(m[r] = tide_model_create(&p, err, sizeof err), "%s", err);
    /* The CSV has a feature column: the task model, and the task half of auto, see each row as
     * one task (docs/predictor.md, tide-predict). */
    int task = strcmp(p.kind, "task") == 0 || strcmp(p.kind, "auto") == 0;
    double sum_ape = 0;
    long n_ape = 0;
    for (int ph = 0; ph < PHASES; ph++) {
        for (int r = 0; r < RANKS; r++) {
            double *out = &lib[ph * RANKS + r];
            tide_task_set ts = {1, 1, &size[r][ph]};
            if (tide_model_predict_phase(m[r], task ? &ts : NULL, out) != TIDE_PRED_OK) *out = NAN;
            if (task)
                tide_model_observe_phase(m[r], load[r][ph], 1, &size[r][ph], &load[r][ph], 1);
            else
                tide_model_observe_phase(m[r], load[r][ph], 0, NULL, NULL, 0);
        }
    }
    for (int r = 0; r < RANKS; r++) {
        tide_model_stats s;
        tide_model_get_stats(m[r], &s);
        sum_ape += s.sum_ape, n_ape += s.n_ape;
        tide_model_destroy(m[r]);
    }
    double mape;
    int k = run_cli(exe, opts, csv, cli, &mape);
    CHECK(k == RANKS * PHASES, "%d predictions", k);
    int npred = 0;
    for (int i = 0; i < k; i++) {
        CHECK(isnan(lib[i]) == isnan(cli[i]), "row %d: library %g, cli %g", i, lib[i], cli[i]);
        if (!isnan(lib[i]))
            CHECK(lib[i] == cli[i], "row %d: library %.17g, cli %.17g", i, lib[i], cli[i]);
        npred += !isnan(lib[i]);
    }
    CHECK(npred == RANKS * (PHASES - first), "predictions from phase %d on: %d", first, npred);
    CHECK(fabs(mape - sum_ape / n_ape) <= 1e-15 * mape, "mape %.17g vs %.17g", mape,
          sum_ape / n_ape);
    printf("ok: '%s': %d identical predictions, MAPE %.3f%%\n", opts, npred, 100 * mape);
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: test_cli_same PATH/tide-predict");
    for (int r = 0; r < RANKS; r++) {
        rng g = {100 + (uint64_t)r};
        ar4_series(&g, load[r], PHASES, 0.01);
        for (int ph = 0; ph < PHASES; ph++) {
            size[r][ph] = 10 + r + (ph % 7);
            if (r == 2 && ph >= 40) load[r][ph] *= 1.5; /* a step, so retraining matters */
        }
    }
    char csv[] = "/tmp/tide_cli_same_XXXXXX";
    int fd = mkstemp(csv);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    write_csv(csv);

    tide_model_params p;
    tide_model_params_defaults(&p);
    /* One task per phase: the task model (alone, or auto's) has more samples than its 1 + 3
     * coefficients after 5 phases, before the rank model's 2 x window + 2. */
    compare(argv[1], csv, "", p, 5);
    p.window = 3, p.train = 12, p.retrain_err = 0.05, p.solver = TIDE_SOLVER_RIDGE;
    compare(argv[1], csv, "--window 3 --train 12 --retrain-err 0.05 --solver ridge", p, 5);
    tide_model_params_defaults(&p);
    snprintf(p.kind, sizeof p.kind, "task");
    p.solver = TIDE_SOLVER_ROBUST;
    compare(argv[1], csv, "--model task --solver robust", p, 5);
    unlink(csv);
    return 0;
}
