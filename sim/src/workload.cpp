/* Workloads: the mxm imbalance presets (apps/mxm/preset.c, the same code mxm uses) with a task
 * time and byte counts, or the replay of a real run's statistics (replay.cpp). */
#include "sim.h"

#include <cmath>
#include <cstring>

extern "C" {
#include "preset.h"
}

static void fill_constant(sim_workload *w, const std::vector<int> &counts, double seconds)
{
    w->ntasks.assign((size_t)w->phases, counts);
    w->dur.assign((size_t)w->phases, std::vector<double>((size_t)w->ranks, seconds));
}

static int make_mxm(const sim_config *c, sim_workload *w, char *err, size_t len)
{
    std::vector<int> counts((size_t)c->ranks);
    char name[96];
    if (c->ntasks_list) {
        counts.assign(c->tasks_list, c->tasks_list + c->ntasks_list);
        snprintf(name, sizeof name, "mxm --tasks");
    } else {
        double target;
        if (mxm_preset_counts(c->imb, c->ranks, c->tasks_per_rank, counts.data(), &target) < 0) {
            snprintf(err, len, "tide-sim: no mxm preset %d for %d ranks", c->imb, c->ranks);
            return -1;
        }
        snprintf(name, sizeof name, "mxm Imb.%d", c->imb);
    }
    w->ranks = c->ranks;
    w->phases = c->iters;
    w->threads = 0;
    fill_constant(w, counts, c->task_ms * 1e-3);
    w->feature = {c->feature};
    w->mhz = 0;
    w->name = name;
    return 0;
}

int sim_workload_make(const sim_config *c, sim_workload *w, char *err, size_t len)
{
    w->task_bytes = c->task_bytes;
    w->result_bytes = c->result_bytes;
    w->cbench = nullptr;
    if (c->workload == SIM_WL_REPLAY) {
        if (sim_replay_load(c->replay, w, err, len)) return -1;
        if (c->iters < w->phases) {
            w->phases = c->iters;
            w->ntasks.resize((size_t)w->phases);
            w->dur.resize((size_t)w->phases);
        }
        return 0;
    }
    if (c->workload == SIM_WL_SAMOA) return sim_samoa_make(c, w, err, len);
    if (c->workload == SIM_WL_CBENCH) return sim_cbench_make(c, w, err, len);
    return make_mxm(c, w, err, len);
}

/* --slow: tasks executing on a slow rank take longer from --slow-from on. */
double sim_slowdown(const sim *S, int rank, int phase)
{
    const sim_config *c = S->cfg;
    if (phase < c->slow_from) return 1.0;
    double f = 1.0;
    for (int i = 0; i < c->nslow; i++)
        if (c->slow[i].rank == rank) f *= c->slow[i].factor;
    return f;
}

/* The objects of --global: rank r's tasks of the first phase, with their times (and mxm's noise)
 * as loads. */
int sim_global_run(const sim_config *c, const sim_workload *wl,
                   const std::vector<sg::Host *> &hosts, double lat, double bw, char *err,
                   size_t len)
{
    std::vector<std::vector<double>> load((size_t)wl->ranks), bytes((size_t)wl->ranks);
    for (int r = 0; r < wl->ranks; r++)
        for (int k = 0; k < wl->ntasks[0][(size_t)r]; k++)
            load[(size_t)r].push_back(sim_task_dur(wl, 0, r, k) * noise_factor(&c->noise, 0, r, k));
    return sim_global_run_objects(c, load, bytes, hosts, lat, bw, err, len);
}
