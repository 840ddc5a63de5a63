/* CPU masks as the kernel writes them in sysfs ("0-3,8,10-11"). */
#ifndef TASKPACK_CPULIST_H
#define TASKPACK_CPULIST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>

/* Parse a cpulist into *set. Returns 0, or -1 on a malformed list or a CPU beyond CPU_SETSIZE. */
int tp_cpulist_parse(const char *text, cpu_set_t *set);

/* Write *set as a cpulist (empty set: ""). Returns 0, or -1 when buf is too small. */
int tp_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/* NUMA domain of each CPU from /sys/devices/system/node (root may be NULL for that path; tests
 * pass a fake tree). numa_of_cpu[c] = -1 for CPUs no node lists. Returns the number of domains
 * found, 0 when the tree is absent. */
int tp_numa_read(const char *root, int *numa_of_cpu, int ncpu);

#endif
