/* cbench_run for a standalone build without Tide (cmake -S apps/cbench and no installed Tide):
 * --eval and --check work, a run says how to get one. */
#include "run.h"

#include <stdio.h>

int cbench_run(cbench_config *c, const cbench_run_opts *o, int *argc, char ***argv)
{
    (void)c, (void)o, (void)argc, (void)argv;
    fprintf(stderr, "cbench: this build has no Tide runtime (built standalone without an installed "
                    "Tide): build from the top level to run the benchmark\n");
    return 2;
}

int cbench_run_refuse(const char *msg)
{
    fprintf(stderr, "cbench: %s\n", msg);
    return 2;
}
