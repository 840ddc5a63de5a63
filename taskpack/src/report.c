/* The finalize report: one line on rank 0's stderr, and with TASKPACK_REPORT one JSON object
 * (schema "taskpack-report/1", documented in docs/taskpack.md). Collective over the world. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"

int tp_report_open(char *err, size_t errlen)
{
    const char *path = tp.cfg.report, *what = "cannot create it";
    errno = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) {
        /* A regular file must take a byte and be emptied again: some accept the open but no
         * write (/proc/version). A pipe or /dev/stdout is written as it is. */
        struct stat st;
        what = "a test write failed";
        int ok = fstat(fd, &st) == 0 &&
                 (!S_ISREG(st.st_mode) ||
                  (write(fd, "{", 1) == 1 && ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0));
        if (ok && (tp.report_file = fdopen(fd, "w"))) return 0;
        int e = errno;
        close(fd);
        errno = e;
    }
    snprintf(err, errlen, "taskpack: TASKPACK_REPORT='%s' is unusable: %s: %s", path, what,
             strerror(errno ? errno : EIO));
    return -1;
}

static double mean(double sum, long n)
{
    return n > 0 ? sum / (double)n : 0;
}

static void put_number(FILE *f, double x, int valid)
{
    if (valid)
        fprintf(f, "%.9g", x);
    else
        fputs("null", f);
}

static void put_cpus(FILE *f, const cpu_set_t *set)
{
    char buf[1024];
    if (tp_cpulist_format(set, buf, sizeof buf) != 0) strcpy(buf, "?");
    fprintf(f, "\"%s\"", buf);
}

/* Node rank 0: the node's JSON object; fills summary = {cpus, freed, predicted, imbalance}. */
static char *node_json(const cpu_set_t *final, const double *t_after, const long *n_after,
                       double summary[4])
{
    cpu_set_t in_use, pool;
    CPU_ZERO(&in_use);
    CPU_ZERO(&pool);
    for (int p = 0; p < tp.plan.pool_size; p++)
        CPU_SET(tp.plan.pool[p], &pool);
    for (int i = 0; i < tp.node_size; i++)
        CPU_OR(&in_use, &in_use, &final[i]);
    CPU_AND(&in_use, &in_use, &pool);
    /* Measured, not planned: a CPU is freed when no rank's final affinity includes it. */
    int freed = tp.plan.pool_size - CPU_COUNT(&in_use);
    double imbalance = tp_imbalance(tp.node_t, tp.node_size, tp.t_max);
    summary[0] = tp.plan.pool_size;
    summary[1] = freed;
    summary[2] = tp.plan.predicted_freed;
    summary[3] = imbalance;

    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    PMPI_Get_processor_name(host, &len);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) return NULL;
    fprintf(f, "{\"host\": \"%s\", \"ranks\": %d, \"cpus\": %d, \"freed\": %d, ", host,
            tp.node_size, tp.plan.pool_size, freed);
    fputs("\"imbalance\": ", f);
    put_number(f, imbalance, tp.packed);
    fprintf(f,
            ", \"predicted_freed\": %d, \"bins\": %d, \"lower_bound\": ", tp.plan.predicted_freed,
            tp.plan.bins);
    put_number(f, tp.plan.lower_bound, tp.packed);
    fprintf(f, ", \"numa_groups\": %d, \"algorithm\": ", tp.plan.groups);
    if (tp.packed)
        fprintf(f, "\"%s\"", tp_algo_name(tp.plan.algo));
    else
        fputs("null", f);
    fputs(", \"master\": ", f);
    put_number(f, tp.node_world[tp.master], tp.packed);
    fputs(", \"pool\": [", f);
    for (int p = 0; p < tp.plan.pool_size; p++)
        fprintf(f, "%s%d", p ? ", " : "", tp.plan.pool[p]);
    fputs("], \"assignment\": [", f);
    for (int i = 0; i < tp.node_size; i++) {
        fprintf(f, "%s\n    {\"rank\": %d, \"time\": ", i ? "," : "", tp.node_world[i]);
        put_number(f, tp.node_t[i], tp.packed);
        fputs(", \"time_after\": ", f);
        put_number(f, t_after[i], n_after[i] > 0);
        fputs(", \"cpus_before\": ", f);
        put_cpus(f, &tp.node_orig[i]);
        fputs(", \"cpu\": ", f);
        put_number(f, tp.plan.cpu[i], tp.plan.cpu[i] >= 0);
        fputs(", \"cpus_after\": ", f);
        put_cpus(f, &final[i]);
        fputs("}", f);
    }
    fputs("]}", f);
    fclose(f);
    return text;
}

static void write_json(FILE *f, const char *nodes, int cpus, int freed, int predicted,
                       double slowdown, int have_slowdown)
{
    const struct tp_config *c = &tp.cfg;
    const char *yield = getenv("OMPI_MCA_mpi_yield_when_idle");
    fprintf(f, "{\n  \"schema\": \"taskpack-report/1\",\n");
    fprintf(f,
            "  \"config\": {\"sync\": \"%s\", \"warmup\": %d, \"tol\": %g, \"slack\": %g, "
            "\"exact_max\": %d, \"apply\": %d, \"yield\": \"%s\", \"mpi_yield_when_idle\": ",
            tp_sync_name(c->sync), c->warmup, c->tol, c->slack, c->exact_max, c->apply,
            tp_yield_name(c->yield));
    if (yield)
        fprintf(f, "\"%s\"},\n", yield);
    else
        fputs("null},\n", f);
    fprintf(f, "  \"ranks\": %d,\n  \"nodes\": %d,\n  \"api\": %s,\n  \"iterations\": %ld,\n",
            tp.size, tp.nnodes, tp.api_mode ? "true" : "false", tp.iterations);
    fprintf(f, "  \"packed\": %s,\n  \"packed_at_iteration\": ", tp.packed ? "true" : "false");
    put_number(f, (double)tp.packed_at, tp.packed);
    fputs(",\n  \"t_max\": ", f);
    put_number(f, tp.t_max, tp.packed);
    fprintf(f, ",\n  \"cpus_assigned\": %d,\n  \"cpus_freed\": %d,\n  \"predicted_freed\": %d,\n",
            cpus, freed, predicted);
    fputs("  \"period_before\": ", f);
    put_number(f, mean(tp.period_before_sum, tp.period_before_n), tp.period_before_n > 0);
    fprintf(f, ",\n  \"iterations_before\": %ld,\n  \"period_after\": ", tp.period_before_n);
    put_number(f, mean(tp.period_after_sum, tp.period_after_n), tp.period_after_n > 0);
    fprintf(f, ",\n  \"iterations_after\": %ld,\n  \"slowdown\": ", tp.period_after_n);
    put_number(f, slowdown, have_slowdown);
    fprintf(f, ",\n  \"per_node\": [%s]\n}\n", nodes);
}

/* Rank 0's sums over the nodes' summaries. */
typedef struct report_totals {
    int cpus, freed, predicted;
    double imbalance; /* mean over the nodes */
} report_totals;

static report_totals sum_nodes(const double *sums, int nl)
{
    report_totals t = {0, 0, 0, 0};
    for (int i = 0; i < nl; i++) {
        t.cpus += (int)sums[4 * i];
        t.freed += (int)sums[4 * i + 1];
        t.predicted += (int)sums[4 * i + 2];
        t.imbalance += sums[4 * i + 3] / nl;
    }
    return t;
}

/* The one line on rank 0's stderr. */
static void print_summary(const report_totals *t, double slowdown, int have_slowdown,
                          int move_failed)
{
    if (tp.packed && have_slowdown)
        fprintf(stderr,
                "taskpack: freed %d of %d CPUs on %d nodes (predicted %d, imbalance "
                "%.3f, slowdown %.3f, packed after iteration %ld%s)\n",
                t->freed, t->cpus, tp.nnodes, t->predicted, t->imbalance, slowdown, tp.packed_at,
                move_failed ? ", sched_setaffinity failed on some rank" : "");
    else if (tp.packed)
        fprintf(stderr,
                "taskpack: freed %d of %d CPUs on %d nodes (predicted %d, imbalance "
                "%.3f, packed after iteration %ld, too few iterations after it to measure "
                "the slowdown%s)\n",
                t->freed, t->cpus, tp.nnodes, t->predicted, t->imbalance, tp.packed_at,
                move_failed ? ", sched_setaffinity failed on some rank" : "");
    else
        fprintf(stderr,
                "taskpack: freed %d of %d CPUs on %d nodes (not packed: %ld iterations "
                "of %s seen, times not stable within TASKPACK_TOL=%g after %d warm-up "
                "iterations)\n",
                t->freed, t->cpus, tp.nnodes, tp.iterations,
                tp.api_mode ? "taskpack_end" : tp_sync_name(tp.cfg.sync), tp.cfg.tol,
                tp.cfg.warmup);
}

/* With TASKPACK_REPORT: the JSON document, then the file is closed. */
static void write_report_file(const char *nodes, const report_totals *t, double slowdown,
                              int have_slowdown)
{
    if (!tp.report_file) return;
    write_json(tp.report_file, nodes, t->cpus, t->freed, t->predicted, slowdown, have_slowdown);
    int bad = ferror(tp.report_file);
    if (fclose(tp.report_file) != 0 || bad)
        fprintf(stderr, "taskpack: TASKPACK_REPORT='%s': writing it failed: %s\n", tp.cfg.report,
                strerror(errno));
    tp.report_file = NULL;
}

/* Rank 0, with every node's JSON object (comma-separated) and summary. */
static void report_world(const char *nodes, const double *sums, int move_failed)
{
    report_totals t = sum_nodes(sums, tp.nnodes);
    double before = mean(tp.period_before_sum, tp.period_before_n);
    double after = mean(tp.period_after_sum, tp.period_after_n);
    int have_slowdown = tp.period_before_n > 0 && tp.period_after_n > 0 && before > 0;
    double slowdown = have_slowdown ? after / before : 0;
    print_summary(&t, slowdown, have_slowdown, move_failed);
    write_report_file(nodes, &t, slowdown, have_slowdown);
}

/* Collective over tp.leaders: every node's JSON object and summary (sums[4 * node + k]) on rank
 * 0. Returns the objects joined with commas on rank 0, NULL elsewhere. */
static char *gather_nodes(const char *mine_json, const double summary[4], double *sums)
{
    int len = mine_json ? (int)strlen(mine_json) : 0, nl = tp.nnodes;
    int *lens = malloc((size_t)nl * sizeof *lens), *displs = malloc((size_t)nl * sizeof *displs);
    if (!lens || !displs) PMPI_Abort(MPI_COMM_WORLD, 1);
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, tp.leaders);
    PMPI_Gather(summary, 4, MPI_DOUBLE, sums, 4, MPI_DOUBLE, 0, tp.leaders);
    int total = 0;
    for (int i = 0; tp.rank == 0 && i < nl; i++) {
        displs[i] = total;
        total += lens[i] + 1; /* room for the separator */
    }
    char *all = tp.rank == 0 ? calloc((size_t)total + 1, 1) : NULL;
    if (tp.rank == 0 && !all) PMPI_Abort(MPI_COMM_WORLD, 1);
    PMPI_Gatherv(mine_json, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, tp.leaders);
    if (tp.rank == 0) {
        for (int i = 0; i + 1 < nl; i++)
            all[displs[i] + lens[i]] = ',';
        for (int i = 0; i < total; i++)
            if (all[i] == '\0') all[i] = ' ';
    }
    free(lens);
    free(displs);
    return all;
}

/* Node rank 0 (a leader): its node's object to rank 0, which reports. */
static void report_node(const cpu_set_t *final, const double *t_afters, const long *n_afters,
                        int move_failed)
{
    double summary[4];
    char *mine_json = node_json(final, t_afters, n_afters, summary);
    double *sums = malloc((size_t)tp.nnodes * 4 * sizeof *sums);
    if (!sums) PMPI_Abort(MPI_COMM_WORLD, 1);
    char *all = gather_nodes(mine_json, summary, sums);
    if (tp.rank == 0) report_world(all, sums, move_failed);
    free(all);
    free(sums);
    free(mine_json);
}

void tp_report(void)
{
    cpu_set_t mine;
    sched_getaffinity(0, sizeof mine, &mine);
    double t_after = mean(tp.t_after_sum, tp.t_after_n);
    long n_after = tp.t_after_n;
    int n = tp.node_size;
    cpu_set_t *final = malloc((size_t)n * sizeof *final);
    double *t_afters = malloc((size_t)n * sizeof *t_afters);
    long *n_afters = malloc((size_t)n * sizeof *n_afters);
    if (!final || !t_afters || !n_afters) PMPI_Abort(MPI_COMM_WORLD, 1);
    PMPI_Gather(&mine, sizeof mine, MPI_BYTE, final, sizeof mine, MPI_BYTE, 0, tp.node);
    PMPI_Gather(&t_after, 1, MPI_DOUBLE, t_afters, 1, MPI_DOUBLE, 0, tp.node);
    PMPI_Gather(&n_after, 1, MPI_LONG, n_afters, 1, MPI_LONG, 0, tp.node);
    int move_failed = 0;
    PMPI_Allreduce(&tp.move_failed, &move_failed, 1, MPI_INT, MPI_MAX, tp.world);
    if (tp.leaders != MPI_COMM_NULL) report_node(final, t_afters, n_afters, move_failed);
    free(final);
    free(t_afters);
    free(n_afters);
}
