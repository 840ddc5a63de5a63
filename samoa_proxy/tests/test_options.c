/* Option parsing: defaults, every option, and one clear line for each kind of bad value. */
#include "../options.h"

#include <stdio.h>
#include <string.h>

static int failures;

static int parse(const char *line, samoa_options *o, char *err)
{
    char buf[512], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "samoa_proxy %s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    return samoa_options_parse(argc, argv, o, err, 256);
}

static void expect_error(const char *line, const char *msg)
{
    samoa_options o;
    char err[256] = "";
    int rc = parse(line, &o, err);
    if (rc != 2 || strstr(err, msg) != err) {
        fprintf(stderr, "FAIL '%s': rc %d, '%s', expected '%s'\n", line, rc, err, msg);
        failures++;
    }
}

int main(void)
{
    samoa_options o;
    char err[256] = "";
    if (parse("", &o, err) != 0 || o.depth != 10 || o.sections != 8 || o.steps != 100 ||
        o.kernel != SAMOA_KERNEL_COMPUTE || o.vtk_dir || o.verify || o.coast_work != 0 ||
        o.noise.jitter.p != 0 || o.noise.disturb.p != 0 || o.noise.seed != 1) {
        fprintf(stderr, "FAIL defaults: %s\n", err);
        failures++;
    }
    if (parse("--depth 12 --sections-per-rank 16 --steps 7 --kernel sleep --cost-us 1,2.5,8 "
              "--vtk out --vtk-every 3 --verify --coast-work 0 --cfl 0.3",
              &o, err) != 0 ||
        o.depth != 12 || o.sections != 16 || o.steps != 7 || o.kernel != SAMOA_KERNEL_SLEEP ||
        !o.have_costs || o.cost_us[1] != 2.5 || o.cost_us[2] != 8 || strcmp(o.vtk_dir, "out") ||
        o.vtk_every != 3 || !o.verify || o.coast_work != 0 || o.cfl != 0.3) {
        fprintf(stderr, "FAIL all options: %s\n", err);
        failures++;
    }
    if (parse("--jitter 0.05:10 --disturb 1:2.5 --noise-seed 9", &o, err) != 0 ||
        o.noise.jitter.p != 0.05 || o.noise.jitter.f != 10 || o.noise.disturb.p != 1 ||
        o.noise.disturb.f != 2.5 || o.noise.seed != 9) {
        fprintf(stderr, "FAIL noise options: %s\n", err);
        failures++;
    }
    if (parse("--cells 1000", &o, err) != 0 || o.depth != 9) { /* 2*2^9 = 1024 >= 1000 */
        fprintf(stderr, "FAIL --cells 1000 gave depth %d\n", o.depth);
        failures++;
    }
    /* Adaptive by default: depth - 5, raised for the job size until every rank's sections get
     * a cell on the coarsest mesh (4 x 8 sections: 32 cells, depth 4; 16 x 8: 128, depth 6). */
    if (parse("", &o, err) != 0 || o.min_depth != -1 || o.adapt_every != 10 ||
        o.repartition_every != 0 || samoa_options_fit_ranks(&o, 4, err, sizeof err) != 0 ||
        o.min_depth != 5) {
        fprintf(stderr, "FAIL adaptation defaults (min depth %d): %s\n", o.min_depth, err);
        failures++;
    }
    if (parse("", &o, err) != 0 || samoa_options_fit_ranks(&o, 16, err, sizeof err) != 0 ||
        o.min_depth != 6 || parse("--depth 3", &o, err) != 0 ||
        samoa_options_fit_ranks(&o, 2, err, sizeof err) != 0 || o.min_depth != 3 ||
        parse("--depth 7", &o, err) != 0 || samoa_options_fit_ranks(&o, 1, err, sizeof err) != 0 ||
        o.min_depth != 2) {
        fprintf(stderr, "FAIL the default min depth for the job size (%d): %s\n", o.min_depth, err);
        failures++;
    }
    /* --uniform, and of it and --min-depth the later one counts. */
    if (parse("--uniform --depth 12", &o, err) != 0 || o.min_depth != 12 ||
        parse("--uniform --min-depth 4", &o, err) != 0 || o.min_depth != 4 ||
        parse("--min-depth 4 --uniform", &o, err) != 0 || o.min_depth != 10) {
        fprintf(stderr, "FAIL --uniform (min depth %d): %s\n", o.min_depth, err);
        failures++;
    }
    /* An explicit min depth is not raised: it is an error when it is too coarse. */
    if (parse("--min-depth 3", &o, err) != 0 ||
        samoa_options_fit_ranks(&o, 4, err, sizeof err) != 2 ||
        strcmp(err, "samoa_proxy: --min-depth 3 gives 16 cells, fewer than 4 ranks x 8 sections")) {
        fprintf(stderr, "FAIL --min-depth 3 on 4 ranks: '%s'\n", err);
        failures++;
    }
    if (parse("--max-depth 14 --min-depth 6 --adapt-every 5 --repartition-every 3", &o, err) != 0 ||
        o.depth != 14 || o.min_depth != 6 || o.adapt_every != 5 || o.repartition_every != 3 ||
        parse("--repartition-every inf", &o, err) != 0 || o.repartition_every != 0) {
        fprintf(stderr, "FAIL adaptation options: %s\n", err);
        failures++;
    }
    expect_error("--depth 8 --min-depth 9",
                 "samoa_proxy: --min-depth 9 is invalid: expected 0..8 (the depth)");
    if (parse("--t-end 1.5 --refine-slope 0.2", &o, err) != 0 || o.t_end != 1.5 ||
        o.refine_slope != 0.2) {
        fprintf(stderr, "FAIL --t-end, --refine-slope: %s\n", err);
        failures++;
    }
    expect_error("--t-end 0", "samoa_proxy: --t-end '0' is invalid: expected a time > 0");
    expect_error("--refine-slope -1", "samoa_proxy: --refine-slope '-1' is invalid");
    expect_error("--adapt-every 0", "samoa_proxy: --adapt-every '0' is invalid");
    expect_error("--repartition-every -1", "samoa_proxy: --repartition-every '-1' is invalid");
    expect_error("--depth 21", "samoa_proxy: --depth '21' is invalid: expected 0..20");
    expect_error("--depth x", "samoa_proxy: --depth 'x' is invalid");
    expect_error("--sections-per-rank 0", "samoa_proxy: --sections-per-rank '0' is invalid");
    expect_error("--steps -3", "samoa_proxy: --steps '-3' is invalid");
    expect_error("--kernel gpu",
                 "samoa_proxy: --kernel 'gpu' is invalid: expected compute or sleep");
    expect_error("--cost-us 1,2", "samoa_proxy: --cost-us '1,2' is invalid");
    expect_error("--cost-us 1,2,-3", "samoa_proxy: --cost-us '1,2,-3' is invalid");
    expect_error("--cost-us 1,2,3,4", "samoa_proxy: --cost-us '1,2,3,4' is invalid");
    expect_error("--cfl 0.6", "samoa_proxy: --cfl '0.6' is invalid: expected a number in (0, 0.5]");
    expect_error("--jitter 1.5:2", "samoa_proxy: --jitter '1.5:2' is invalid: expected P:F with P "
                                   "in [0, 1] and F in [1, 1000]");
    expect_error("--disturb 0.5", "samoa_proxy: --disturb '0.5' is invalid");
    expect_error("--disturb 0.5:0.9", "samoa_proxy: --disturb '0.5:0.9' is invalid");
    expect_error("--noise-seed -1", "samoa_proxy: --noise-seed '-1' is invalid");
    expect_error("--jitter", "samoa_proxy: --jitter needs a value");
    expect_error("--steps", "samoa_proxy: --steps needs a value");
    expect_error("--bogus 1", "samoa_proxy: unknown option '--bogus'");
    expect_error("depth", "samoa_proxy: unexpected argument 'depth'");
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
