/* Node plans: the CPU pool rule, moves only when a CPU is freed, capacity respected, NUMA
 * alignment; cpulist parsing and the sysfs NUMA reader. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cpulist.h"
#include "plan.h"

static cpu_set_t mask_of(const char *list)
{
    cpu_set_t s;
    if (tp_cpulist_parse(list, &s) != 0) CPU_ZERO(&s);
    return s;
}

/* Every rank moved onto a pool CPU its node holds, and no CPU carries more than cap. */
static void check_feasible(const struct tp_plan_input *in, const struct tp_plan *plan)
{
    double load[CPU_SETSIZE] = {0};
    int used = 0;
    for (int i = 0; i < in->n; i++) {
        int c = plan->cpu[i];
        CHECK(c >= 0, "rank %d not placed", i);
        if (c < 0) continue;
        int in_pool = 0;
        for (int p = 0; p < plan->pool_size; p++)
            in_pool |= plan->pool[p] == c;
        CHECK(in_pool, "rank %d placed on CPU %d outside the pool", i, c);
        if (load[c] == 0) used++;
        load[c] += in->t[i] > 0 ? in->t[i] : 1e-12;
        CHECK(load[c] <= in->cap * (1 + 1e-9), "CPU %d over capacity", c);
    }
    CHECK(used == plan->bins, "plan says %d bins, uses %d CPUs", plan->bins, used);
    CHECK(plan->predicted_freed == plan->pool_size - used, "freed mismatch");
}

static void test_pool(void)
{
    int pool[CPU_SETSIZE];
    cpu_set_t two_unbound[2] = {mask_of("0-1"), mask_of("0-1")};
    CHECK(tp_plan_pool(two_unbound, 2, pool) == 2, "two unbound ranks on 2 cores hold 2 CPUs");
    cpu_set_t four_unbound[4] = {mask_of("0-1"), mask_of("0-1"), mask_of("0-1"), mask_of("0-1")};
    CHECK(tp_plan_pool(four_unbound, 4, pool) == 2, "4 ranks on 2 CPUs hold 2 CPUs");
    cpu_set_t one_of_many[1] = {mask_of("0-7")};
    CHECK(tp_plan_pool(one_of_many, 1, pool) == 1 && pool[0] == 0, "one rank holds one CPU");
    cpu_set_t bound[3] = {mask_of("4"), mask_of("2"), mask_of("6")};
    int k = tp_plan_pool(bound, 3, pool);
    CHECK(k == 3 && pool[0] == 2 && pool[1] == 4 && pool[2] == 6, "bound ranks keep their CPUs");
}

static void test_imbalanced_node(void)
{
    double t[4] = {1.0, 0.2, 0.3, 0.25};
    cpu_set_t m[4] = {mask_of("0"), mask_of("1"), mask_of("2"), mask_of("3")};
    int cpu[4];
    struct tp_plan plan = {.cpu = cpu};
    struct tp_plan_input in = {.n = 4, .t = t, .mask = m, .cap = 1.0, .exact_max = 16};
    CHECK(tp_plan_node(&in, &plan) == 0, "plan failed");
    CHECK(plan.pool_size == 4 && plan.bins == 2 && plan.predicted_freed == 2,
          "expected 2 of 4 freed, got bins %d freed %d", plan.bins, plan.predicted_freed);
    check_feasible(&in, &plan);
    CHECK(cpu[0] == 0, "the heavy rank should keep its own CPU, got %d", cpu[0]);
    /* Slack: the total 1.75 fits one CPU only with more than 75% slack (times are rounded up
     * when discretized, so exactly 1.75 is not promised). */
    in.cap = 1.5;
    CHECK(tp_plan_node(&in, &plan) == 0 && plan.bins == 2, "slack 0.5: 2 bins");
    in.cap = 1.76;
    CHECK(tp_plan_node(&in, &plan) == 0 && plan.bins == 1, "slack 0.76: 1 bin");
    check_feasible(&in, &plan);
}

static void test_balanced_moves_nothing(void)
{
    double t[3] = {1.0, 0.98, 0.99};
    cpu_set_t m[3] = {mask_of("0"), mask_of("1"), mask_of("2")};
    int cpu[3];
    struct tp_plan plan = {.cpu = cpu};
    struct tp_plan_input in = {.n = 3, .t = t, .mask = m, .cap = 1.0, .exact_max = 16};
    CHECK(tp_plan_node(&in, &plan) == 0, "plan failed");
    CHECK(plan.predicted_freed == 0 && plan.bins == 3, "balanced node freed %d",
          plan.predicted_freed);
    for (int i = 0; i < 3; i++)
        CHECK(cpu[i] == -1, "rank %d moved on a balanced node", i);
}

static void test_oversubscribed(void)
{
    /* Four unbound ranks share two CPUs: only a one-bin packing frees anything. */
    double t[4] = {1.0, 0.05, 0.05, 0.05};
    cpu_set_t m[4] = {mask_of("0-1"), mask_of("0-1"), mask_of("0-1"), mask_of("0-1")};
    int cpu[4];
    struct tp_plan plan = {.cpu = cpu};
    struct tp_plan_input in = {.n = 4, .t = t, .mask = m, .cap = 1.0, .exact_max = 16};
    CHECK(tp_plan_node(&in, &plan) == 0 && plan.pool_size == 2, "pool of 2");
    CHECK(plan.predicted_freed == 0 && cpu[0] == -1, "sum 1.15 > 1: nothing to free");
    in.cap = 1.2;
    CHECK(tp_plan_node(&in, &plan) == 0 && plan.predicted_freed == 1, "slack 0.2 frees one");
    check_feasible(&in, &plan);
}

static void test_numa_alignment(void)
{
    /* Two domains {0-3} {4-7}; ranks bound one per CPU. Packing across domains would need 2
     * bins too, but each domain must be packed onto its own CPUs. */
    int numa[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    double t[8] = {1.0, 0.3, 0.3, 0.3, 1.0, 0.2, 0.2, 0.2};
    cpu_set_t m[8];
    for (int i = 0; i < 8; i++) {
        CPU_ZERO(&m[i]);
        CPU_SET(i, &m[i]);
    }
    int cpu[8];
    struct tp_plan plan = {.cpu = cpu};
    struct tp_plan_input in = {
        .n = 8, .t = t, .mask = m, .cap = 1.0, .exact_max = 16, .numa_of_cpu = numa, .ncpu = 8};
    CHECK(tp_plan_node(&in, &plan) == 0, "plan failed");
    CHECK(plan.groups == 2, "expected 2 NUMA groups, got %d", plan.groups);
    CHECK(plan.bins == 4 && plan.predicted_freed == 4, "bins %d", plan.bins);
    check_feasible(&in, &plan);
    for (int i = 0; i < 8; i++)
        CHECK(numa[cpu[i]] == numa[i], "rank %d left its NUMA domain (cpu %d)", i, cpu[i]);
    /* A rank spanning both domains: no alignment possible, one group. */
    m[0] = mask_of("0-7");
    CHECK(tp_plan_node(&in, &plan) == 0 && plan.groups == 1, "spanning rank: one group");
}

static void test_imbalance_metric(void)
{
    double t[4] = {1.0, 0.5, 0.5, 0.0};
    CHECK(tp_imbalance(t, 4, 1.0) == 0.5, "eq. 5: 2/(1*4)");
    double b[2] = {2.0, 2.0};
    CHECK(tp_imbalance(b, 2, 2.0) == 1.0, "balanced is 1");
}

static void test_cpulist(void)
{
    cpu_set_t s;
    char buf[64];
    CHECK(tp_cpulist_parse("0-3,8,10-11\n", &s) == 0 && CPU_COUNT(&s) == 7, "parse");
    CHECK(tp_cpulist_format(&s, buf, sizeof buf) == 0 && strcmp(buf, "0-3,8,10-11") == 0,
          "format gave '%s'", buf);
    CHECK(tp_cpulist_parse("3-1", &s) == -1, "reversed range accepted");
    CHECK(tp_cpulist_parse("1,x", &s) == -1, "garbage accepted");
    CHECK(tp_cpulist_parse("0-7", &s) == 0 && tp_cpulist_format(&s, buf, 3) == -1,
          "short buffer accepted");
}

static void test_numa_read(void)
{
    char root[] = "/tmp/taskpack-numa-XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    const char *nodes[2][2] = {{"node0", "0-1,4\n"}, {"node1", "2-3\n"}};
    char path[256];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, nodes[i][0]);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/%s/cpulist", root, nodes[i][0]);
        FILE *f = fopen(path, "w");
        fputs(nodes[i][1], f);
        fclose(f);
    }
    int numa[8];
    CHECK(tp_numa_read(root, numa, 8) == 2, "two domains");
    CHECK(numa[0] == 0 && numa[1] == 0 && numa[4] == 0 && numa[2] == 1 && numa[3] == 1 &&
              numa[5] == -1,
          "map");
    CHECK(tp_numa_read("/nonexistent-taskpack", numa, 8) == 0, "absent tree");
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s/cpulist", root, nodes[i][0]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", root, nodes[i][0]);
        rmdir(path);
    }
    rmdir(root);
}

int main(void)
{
    test_pool();
    test_imbalanced_node();
    test_balanced_moves_nothing();
    test_oversubscribed();
    test_numa_alignment();
    test_imbalance_metric();
    test_cpulist();
    test_numa_read();
    return CHECK_DONE("test_plan");
}
