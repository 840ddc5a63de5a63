/* Node plan (see plan.h). */
#include "plan.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

double tp_imbalance(const double *t, int n, double t_max)
{
    if (n <= 0 || t_max <= 0) return 1.0;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += t[i];
    return sum / (t_max * n);
}

/* Domain of a mask when all its CPUs lie in one NUMA domain, else -1. */
static int mask_domain(const cpu_set_t *m, const int *numa_of_cpu, int ncpu)
{
    int dom = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, m)) continue;
        int d = c < ncpu ? numa_of_cpu[c] : -1;
        if (d < 0 || (dom >= 0 && d != dom)) return -1;
        dom = d;
    }
    return dom;
}

static int lowest_free_cpu(const cpu_set_t *m, const cpu_set_t *taken)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, m) && !CPU_ISSET(c, taken)) return c;
    return -1;
}

/* Pack the ranks of one group onto `pool` (np CPUs). Returns bins used, or -1. */
static int pack_group(const struct tp_plan_input *in, const int *member, int nm, const int *pool,
                      int np, struct tp_plan *plan, int *lb, enum tp_algo *algo)
{
    int64_t *w = malloc((size_t)nm * sizeof *w);
    int *bin = malloc((size_t)nm * sizeof *bin);
    int *bin_cpu = malloc((size_t)nm * sizeof *bin_cpu);
    if (!w || !bin || !bin_cpu) {
        free(w);
        free(bin);
        free(bin_cpu);
        return -1;
    }
    for (int k = 0; k < nm; k++) {
        /* Round up so that a plan that fits in units also fits in seconds; an idle rank still
         * needs a CPU, so it weighs at least one unit. */
        double units = ceil(in->t[member[k]] / in->cap * TP_PLAN_SCALE);
        w[k] = units < 1 ? 1 : units > TP_PLAN_SCALE ? TP_PLAN_SCALE : (int64_t)units;
    }
    int bins = tp_pack(w, nm, TP_PLAN_SCALE, in->exact_max, bin, algo);
    *lb = tp_pack_lower_bound(w, nm, TP_PLAN_SCALE);
    if (bins >= 0 && bins < np) {
        /* Each bin goes to a pool CPU that one of its ranks already owns when possible, so
         * fewer ranks move. */
        unsigned char used[CPU_SETSIZE] = {0};
        for (int b = 0; b < bins; b++) {
            bin_cpu[b] = -1;
            for (int k = 0; k < nm && bin_cpu[b] < 0; k++) {
                if (bin[k] != b) continue;
                for (int p = 0; p < np; p++) {
                    if (!used[p] && CPU_ISSET(pool[p], &in->mask[member[k]])) {
                        bin_cpu[b] = p;
                        break;
                    }
                }
            }
            for (int p = 0; p < np && bin_cpu[b] < 0; p++)
                if (!used[p]) bin_cpu[b] = p;
            used[bin_cpu[b]] = 1;
        }
        for (int k = 0; k < nm; k++)
            plan->cpu[member[k]] = pool[bin_cpu[bin[k]]];
    } else if (bins >= 0) {
        bins = np;
    }
    free(w);
    free(bin);
    free(bin_cpu);
    return bins;
}

int tp_plan_pool(const cpu_set_t *mask, int n, int *pool)
{
    /* Each rank contributes the lowest CPU of its mask not taken yet, so a node never holds more
     * CPUs than ranks nor any CPU outside its ranks' masks. */
    cpu_set_t taken;
    CPU_ZERO(&taken);
    for (int i = 0; i < n; i++) {
        int c = lowest_free_cpu(&mask[i], &taken);
        if (c >= 0) CPU_SET(c, &taken);
    }
    int size = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &taken)) pool[size++] = c;
    return size;
}

int tp_plan_node(const struct tp_plan_input *in, struct tp_plan *plan)
{
    if (in->n <= 0 || !(in->cap > 0)) return -1;
    for (int i = 0; i < in->n; i++)
        if (!(in->t[i] >= 0) || CPU_COUNT(&in->mask[i]) == 0) return -1;
    int n = in->n;
    int *dom = malloc((size_t)n * sizeof *dom);
    int *member = malloc((size_t)n * sizeof *member);
    if (!dom || !member) {
        free(dom);
        free(member);
        return -1;
    }
    /* NUMA alignment only when every rank sits inside one domain: a rank spanning domains has
     * no home to keep it in. */
    int aligned = in->numa_of_cpu != NULL;
    for (int i = 0; i < n; i++) {
        dom[i] = in->numa_of_cpu ? mask_domain(&in->mask[i], in->numa_of_cpu, in->ncpu) : -1;
        if (dom[i] < 0) aligned = 0;
    }
    if (!aligned)
        for (int i = 0; i < n; i++)
            dom[i] = 0;

    memset(plan, 0, offsetof(struct tp_plan, cpu));
    for (int i = 0; i < n; i++)
        plan->cpu[i] = -1;
    plan->pool_size = tp_plan_pool(in->mask, n, plan->pool);

    int rc = 0, largest = -1;
    for (int first = 0; first < n && rc == 0; first++) {
        /* One group per distinct domain, visited at its first rank. */
        int seen = 0;
        for (int i = 0; i < first; i++)
            seen |= dom[i] == dom[first];
        if (seen) continue;
        int nm = 0, np = 0, gpool[CPU_SETSIZE];
        for (int i = first; i < n; i++)
            if (dom[i] == dom[first]) member[nm++] = i;
        for (int p = 0; p < plan->pool_size; p++) {
            int c = plan->pool[p];
            if (!aligned || (c < in->ncpu && in->numa_of_cpu[c] == dom[first])) gpool[np++] = c;
        }
        int lb = 0;
        enum tp_algo algo = TP_ALGO_EXACT;
        int bins = pack_group(in, member, nm, gpool, np, plan, &lb, &algo);
        if (bins < 0) {
            rc = -1;
            break;
        }
        plan->bins += bins;
        plan->lower_bound += lb;
        plan->groups++;
        if (nm > largest) {
            largest = nm;
            plan->algo = algo;
        }
    }
    plan->predicted_freed = plan->pool_size - plan->bins;
    if (rc || plan->predicted_freed <= 0) {
        plan->bins = plan->pool_size;
        plan->predicted_freed = 0;
        for (int i = 0; i < n; i++)
            plan->cpu[i] = -1;
    }
    free(dom);
    free(member);
    return rc;
}
