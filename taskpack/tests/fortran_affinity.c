/* print_affinity(rank) for the Fortran test: prints "rank R cpus LIST" like imbalanced.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <string.h>

void print_affinity_(const int *rank)
{
    cpu_set_t set;
    char list[512] = "";
    sched_getaffinity(0, sizeof set, &set);
    for (int c = 0, first = 1; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", first ? "" : ",", c);
        first = 0;
    }
    printf("rank %d cpus %s\n", *rank, list);
    fflush(stdout);
}
