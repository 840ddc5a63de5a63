/* The load model's driver in the simulator: the engine core's prediction feed
 * (runtime/core, tide_core_feed.h) decides what the model is fed and asked, as for libtide;
 * this file supplies the simulated rank's numbers (its tasks' features from the workload, their
 * simulated times, its load). --pred exact instead gives every rank its true load with no
 * uncertainty: the planner then sees what an oracle would (tests, and the bound of what
 * prediction can buy). */
#include "sim.h"

int sim_predict_init(sim_rank *R, char *err, size_t len)
{
    R->feed = tide_feed{};
    R->feed.load = R->feed.unc = -1;
    if (R->S->cfg->pred_mode == SIM_PRED_EXACT) return 0;
    return tide_feed_init(&R->feed, &R->S->cfg->tide.pred, nullptr, R->S->wl->mhz > 0, err, len);
}

void sim_predict_free(sim_rank *R)
{
    tide_feed_free(&R->feed);
}

/* The phase's own tasks as the feed reads them: row k is task k's features (the workload's own
 * rows where its tasks differ, else the one row every task has), and after the phase their
 * simulated times. */
static tide_feed_tasks feed_tasks(const sim_rank *R, std::vector<double> *f,
                                  const std::vector<double> *times)
{
    const sim_workload *w = R->S->wl;
    f->clear();
    if (!w->task_feat.empty()) {
        const std::vector<double> &rows = w->task_feat[(size_t)R->phase][(size_t)R->id];
        f->assign(rows.begin(), rows.begin() + (long)R->phase_tasks * w->nfeat);
        return tide_feed_tasks{R->phase_tasks, w->nfeat, f->data(),
                               times ? times->data() : nullptr};
    }
    const std::vector<double> &row = w->feature;
    int nf = (int)row.size();
    for (long k = 0; k < R->phase_tasks; k++)
        f->insert(f->end(), row.begin(), row.end());
    return tide_feed_tasks{R->phase_tasks, nf, f->data(), times ? times->data() : nullptr};
}

static void predict_exact(sim_rank *R)
{
    double f = sim_slowdown(R->S, R->id, R->phase), load = 0;
    const sim_table *tb = sim_tab(R->S, R->phase);
    for (long i = tb->off[(size_t)R->id]; i < tb->off[(size_t)R->id + 1]; i++)
        load += tb->tasks[(size_t)i].dur * f;
    tide_feed_serve(&R->feed, load, TIDE_FEED_SRC_EXACT);
}

void sim_predict_phase(sim_rank *R)
{
    if (!R->feed.model) {
        predict_exact(R);
    } else {
        std::vector<double> f;
        tide_feed_tasks next = feed_tasks(R, &f, nullptr);
        tide_feed_predict(&R->feed, &next);
    }
    if (!R->S->decisions.empty()) { /* --decisions: the served numbers, not the weights */
        tide_feed &d = R->S->decisions[(size_t)R->phase][(size_t)R->id].pred;
        d = R->feed;
        d.model = nullptr;
        d.weights = d.mat = nullptr;
    }
}

/* A task's index k among the rank's tasks of the phase is its row and its position; the
 * started ones and those the workers start before the plan is applied are marked, as in
 * runtime/engine/predict.c (tide_predict_task_times). */
bool sim_predict_task_times(sim_rank *R, double *times, long n)
{
    if (!R->feed.per_task) return false;
    if (n != R->phase_tasks) return false;
    std::vector<long> queued;
    for (long k = 0; k < n; k++)
        times[k] = tide_feed_weight(&R->feed, k);
    for (int tid = R->head; tid >= 0; tid = sim_task_of(R, tid)->next)
        queued.push_back(sim_task_of(R, tid)->k);
    double budget = 0;
    if (!R->hold_own) /* the workers ran while the plan was made */
        budget = 2 * R->S->W * (R->plan_at - (sg::Engine::get_clock() - R->phase_start));
    tide_plan_freeze(times, n, queued.data(), (long)queued.size(), budget);
    return true;
}

void sim_predict_observe(sim_rank *R)
{
    if (!R->feed.model) return;
    std::vector<double> f, times;
    const sim_table *tb = sim_tab(R->S, R->phase);
    for (long i = tb->off[(size_t)R->id]; i < tb->off[(size_t)R->id + 1]; i++)
        times.push_back(tb->tasks[(size_t)i].exec_time);
    tide_feed_tasks done = feed_tasks(R, &f, &times);
    /* The phase's number counting from 1, as libtide passes it (tide_predict_observe). */
    tide_feed_observe(&R->feed, R->L, &done, R->phase + 1, R->S->wl->mhz);
}
