/* Task functions in shared libraries move between ranks: one from a library the program links,
 * one from a library opened with dlopen after tide_init (its address is unknown at init). Run
 * with TIDE_LB=random TIDE_RANDOM_FRACTION=1 so that every task runs on another rank. */
#include "test_util.h"
#include "tide.h"

#include <dlfcn.h>

void lib_scale(void **args);

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    CHECK(argc > 1, "usage: test_shlib_task PATH_OF_DLOPEN_LIBRARY");
    void *h = dlopen(argv[1], RTLD_NOW);
    CHECK(h, "dlopen %s: %s", argv[1], dlerror());
    tide_task_fn late = NULL;
    void *sym = dlsym(h, "lib_scale_late");
    CHECK(sym, "dlsym: %s", dlerror());
    *(void **)&late = sym;
    enum { N = 40 };
    int64_t in[N], out[N];
    for (int i = 0; i < N; i++) {
        in[i] = i + 100 * tide_rank();
        out[i] = -1;
        tide_arg args[2] = {{&in[i], sizeof in[i], TIDE_IN}, {&out[i], sizeof out[i], TIDE_OUT}};
        tide_task *t;
        CHECK_OK(tide_task_create(&t, i % 2 ? late : lib_scale, 2, args));
        CHECK_OK(tide_task_submit(t));
    }
    CHECK_OK(tide_taskwait());
    for (int i = 0; i < N; i++)
        CHECK(out[i] == in[i] * (i % 2 ? 5 : 3), "task %d: %lld", i, (long long)out[i]);
    tide_phase_stats st;
    CHECK_OK(tide_stats_last_phase(&st));
    CHECK(st.offloaded_self == N, "only %lld of %d tasks moved", (long long)st.offloaded_self, N);
    CHECK_OK(tide_finalize());
    dlclose(h);
    return 0;
}
