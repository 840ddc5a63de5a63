/* Load prediction, fed exactly as runtime/engine/predict.c feeds it: one model per rank from the
 * predictor library (TIDE_PRED_*), asked before each phase for the phase's load with its
 * uncertainty (with the phase's task features when the model is `task` or `auto`), and told
 * after it what the rank's own tasks measured. --pred exact instead gives every rank its true
 * load with no uncertainty: the planner then sees what an oracle would (tests, and the bound
 * of what prediction can buy). */
#include "sim.h"

#include <cstring>

static bool collects(const sim_config *c)
{
    return strcmp(c->tide.pred.kind, "task") == 0 || strcmp(c->tide.pred.kind, "auto") == 0;
}

int sim_predict_init(sim_rank *R, char *err, size_t len)
{
    R->L_pred = R->L_unc = -1;
    R->pred_kind = -1;
    R->model = nullptr;
    if (R->S->cfg->pred_mode == SIM_PRED_EXACT) return 0;
    R->model = tide_model_create(&R->S->cfg->tide.pred, err, len);
    return R->model ? 0 : -1;
}

void sim_predict_free(sim_rank *R)
{
    tide_model_destroy(R->model);
    R->model = nullptr;
}

/* The phase's own tasks as the model sees them: rows of the workload's features. Never a
 * NULL array, even without features: the task model copies rows of nfeat values from it, and
 * memcpy from NULL is undefined even for 0 bytes (UBSan stops there). */
static tide_task_set task_set(const sim_rank *R, std::vector<double> *f)
{
    int nf = R->S->wl->nfeat;
    f->assign((size_t)R->phase_tasks * (size_t)nf + 1, R->S->wl->feature);
    return tide_task_set{(int)R->phase_tasks, nf, f->data()};
}

static int kind_of(const tide_prediction *p)
{
    switch (p->source) {
    case TIDE_SRC_MODEL:
        return strcmp(p->model, "rank") == 0   ? PK_RANK
               : strcmp(p->model, "task") == 0 ? PK_TASK
                                               : PK_TOOL;
    case TIDE_SRC_PERSISTENCE:
        return PK_PERSISTENCE;
    case TIDE_SRC_MEDIAN:
        return PK_MEDIAN;
    case TIDE_SRC_GUARD:
        return PK_GUARD;
    default:
        return -1;
    }
}

static void predict_exact(sim_rank *R)
{
    double f = sim_slowdown(R->S, R->id, R->phase), load = 0;
    const sim_table *tb = sim_tab(R->S, R->phase);
    for (long i = tb->off[(size_t)R->id]; i < tb->off[(size_t)R->id + 1]; i++)
        load += tb->tasks[(size_t)i].dur * f;
    R->L_pred = load;
    R->L_unc = 0;
    R->pred_kind = PK_EXACT;
}

/* The task model's per-task weights, scaled to the served prediction (as predict.c does). */
static void task_weights(sim_rank *R, const tide_task_set *set)
{
    R->pred_times.assign((size_t)set->ntasks + 1, 0.0);
    double sum = 0;
    if (tide_model_predict_tasks(R->model, set, R->pred_times.data(), &sum) != TIDE_PRED_OK) return;
    double scale = sum > 0 && R->L_pred >= 0 ? R->L_pred / sum : 1.0;
    for (double &t : R->pred_times)
        t *= scale;
    R->task_pred = true;
}

void sim_predict_phase(sim_rank *R)
{
    R->task_pred = false;
    if (!R->model) {
        predict_exact(R);
        return;
    }
    bool collect = collects(R->S->cfg);
    std::vector<double> f;
    tide_task_set next = task_set(R, &f);
    tide_prediction p;
    bool ok = tide_model_predict_info(R->model, collect ? &next : nullptr, &p) == TIDE_PRED_OK;
    R->L_pred = ok ? p.load : -1;
    R->L_unc = ok ? p.unc : -1;
    R->pred_kind = ok ? kind_of(&p) : -1;
    if (ok && collect) task_weights(R, &next);
}

bool sim_predict_task_times(sim_rank *R, double *times, long n)
{
    if (!R->task_pred) return false;
    long k = 0;
    for (int tid = R->head; tid >= 0 && k < n; tid = sim_task_of(R, tid)->next, k++)
        times[k] = R->pred_times[(size_t)sim_task_of(R, tid)->k];
    return k == n;
}

void sim_predict_observe(sim_rank *R)
{
    if (!R->model) return;
    tide_phase_obs obs = {};
    obs.load = R->L;
    std::vector<double> f, times;
    if (collects(R->S->cfg)) {
        obs.tasks = task_set(R, &f);
        const sim_table *tb = sim_tab(R->S, R->phase);
        for (long i = tb->off[(size_t)R->id]; i < tb->off[(size_t)R->id + 1]; i++)
            times.push_back(tb->tasks[(size_t)i].exec_time);
        obs.task_times = times.empty() ? nullptr : times.data();
    }
    tide_model_observe(R->model, &obs);
}
