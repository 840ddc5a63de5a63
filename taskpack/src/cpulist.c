/* cpulist parsing and formatting, NUMA map from sysfs (see cpulist.h). */
#include "cpulist.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_cpulist_parse(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p && *p != '\n') {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0) return -1;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo) return -1;
            p = end;
        }
        if (hi >= CPU_SETSIZE) return -1;
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return 0;
}

int tp_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set)) continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        int w = hi == c ? snprintf(buf + used, len - used, "%s%d", used ? "," : "", c)
                        : snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, hi);
        if (w < 0 || (size_t)w >= len - used) return -1;
        used += (size_t)w;
        c = hi;
    }
    return 0;
}

int tp_numa_read(const char *root, int *numa_of_cpu, int ncpu)
{
    const char *dir = root ? root : "/sys/devices/system/node";
    for (int c = 0; c < ncpu; c++)
        numa_of_cpu[c] = -1;
    DIR *d = opendir(dir);
    if (!d) return 0;
    int domains = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "node", 4) != 0) continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (end == e->d_name + 4 || *end) continue;
        char path[512], line[4096];
        snprintf(path, sizeof path, "%s/%s/cpulist", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        cpu_set_t set;
        if (fgets(line, sizeof line, f) && tp_cpulist_parse(line, &set) == 0) {
            domains++;
            for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &set)) numa_of_cpu[c] = (int)id;
        }
        fclose(f);
    }
    closedir(d);
    return domains;
}
