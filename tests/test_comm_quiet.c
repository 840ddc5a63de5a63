/* While the application thread runs the phases, the comm thread keeps off the cores: under a
 * strategy that acts, on balanced phases, the plan gate runs the phases without the protocol
 * (inline: the comm thread has no part in them), and the comm thread must then sleep until
 * something wakes it, not poll every TIDE_POLL_SLEEP_MAX_US (250 us: 4,000 wake-ups a second a
 * rank, each preempting the application thread on a busy node).
 *
 * Every rank runs WARM phases (the gate's decision), then MEASURED phases of one task of TASK_US
 * each, and reads its comm thread's voluntary context switches (/proc/self/task/TID/status, the
 * thread named "tide-comm") before and after each. A comm thread polling at 250 us sleeps about
 * 8 times in a phase of 2 ms; one that backs off to the inline cap (100 ms) sleeps less than once
 * a phase once its sleeps have doubled past 2 ms. The gate's probes (a phase or two through the
 * protocol now and then, which wakes the comm thread and starts its back-off over) add a few
 * dozen sleeps each: the check is on the median phase, at most 1.
 * A failure means either that the comm thread polled through idle phases or that the gate did
 * not hold the phases idle (finalize's line says how many it ran without the protocol). */
#define _GNU_SOURCE
#include "test_util.h"
#include "tide.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { WARM = 20, MEASURED = 200, TASK_US = 2000 };

static void nap(void **args)
{
    (void)args;
    struct timespec ts = {0, TASK_US * 1000L};
    nanosleep(&ts, NULL);
}

/* The status file of this process's thread named `name`, in path; false if there is none. */
static bool status_of(const char *name, char *path, size_t len)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char comm[64] = "";
        snprintf(path, len, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        found = strcmp(comm, name) == 0;
        if (found) snprintf(path, len, "/proc/self/task/%s/status", e->d_name);
    }
    closedir(d);
    return found;
}

/* The voluntary context switches in a thread's status file; -1 if unreadable. */
static long switches(const char *status)
{
    long n = -1;
    FILE *f = fopen(status, "r");
    if (!f) return -1;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1) break;
    fclose(f);
    return n;
}

static int by_value(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* n phases of one task; the comm thread's sleeps in each into woke (when not NULL). */
static void phases(int n, const char *status, long *woke)
{
    for (int p = 0; p < n; p++) {
        long before = woke ? switches(status) : 0;
        tide_task *t;
        CHECK_OK(tide_task_create(&t, nap, 0, NULL));
        CHECK_OK(tide_task_submit(t));
        CHECK_OK(tide_taskwait());
        if (woke) woke[p] = switches(status) - before;
    }
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    char status[300];
    CHECK(status_of("tide-comm", status, sizeof status),
          "rank %d: no thread named tide-comm in /proc/self/task", tide_rank());
    CHECK(switches(status) >= 0, "rank %d: cannot read %s", tide_rank(), status);
    phases(WARM, NULL, NULL);
    static long woke[MEASURED];
    phases(MEASURED, status, woke);
    long total = 0;
    for (int p = 0; p < MEASURED; p++)
        total += woke[p];
    qsort(woke, MEASURED, sizeof *woke, by_value);
    long median = woke[MEASURED / 2];
    printf("rank %d: comm thread slept %ld times in %d phases of %d us, median %ld a phase\n",
           tide_rank(), total, MEASURED, TASK_US, median);
    CHECK(median <= 1,
          "rank %d: the comm thread slept %ld times in the median phase of %d us (%ld in %d "
          "phases); at most 1 expected where the plan gate holds the phases idle",
          tide_rank(), median, TASK_US, total, MEASURED);
    CHECK_OK(tide_finalize());
    return 0;
}
