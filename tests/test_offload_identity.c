/* Results are byte-identical whether a task runs at home or on another rank: argument sizes
 * from 0 bytes to several MB, every mode, VALUE arguments. Run with TIDE_LB=none and with
 * TIDE_LB=random TIDE_RANDOM_FRACTION=1 (every task moves); each run compares every output
 * against a reference computed by calling the task function directly. */
#include "test_util.h"
#include "tide.h"

#include <string.h>

/* Argument pointers a task saw that were not 16-byte aligned (tide.h promises it for copies on a
 * remote rank and for VALUE copies; the application's own buffers here come from malloc). */
static int misaligned;

/* args: 0 IN a[n], 1 VALUE key (uint64), 2 OUT b[n], 3 INOUT c[m], 4 VALUE blob[v], 5 OUT empty */
static void mix(void **args)
{
    for (int i = 0; i < 6; i++)
        if ((uintptr_t)args[i] % 16) __atomic_fetch_add(&misaligned, 1, __ATOMIC_RELAXED);
    const unsigned char *a = args[0];
    uint64_t key = *(const uint64_t *)args[1];
    unsigned char *b = args[2];
    unsigned char *c = args[3];
    const unsigned char *blob = args[4];
    size_t n = (size_t)(key >> 40), m = (size_t)((key >> 16) & 0xffffff), v = key & 0xffff;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(a[i] * 3 + (key & 0xff) + i);
    for (size_t i = 0; i < m; i++)
        c[i] = (unsigned char)(c[i] ^ (i * 7) ^ (v ? blob[i % v] : 0));
    (void)args[5];
}

typedef struct job {
    size_t n, m, v;
    unsigned char *a, *b, *c, *blob, *ref_b, *ref_c;
    uint64_t key;
} job;

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank();
    static const size_t sizes[] = {0, 1, 7, 64, 4096, 65537, 1 << 20, 3 << 20};
    enum { NS = sizeof sizes / sizeof *sizes, NJ = NS * 2 };
    job jobs[NJ];
    uint64_t rng = 42 + (uint64_t)rank;
    for (int j = 0; j < NJ; j++) {
        job *jb = &jobs[j];
        jb->n = sizes[j % NS];
        jb->m = sizes[(j + 3) % NS] % 200000;
        jb->v = (size_t)(test_rng(&rng) % 300);
        jb->a = malloc(jb->n + 1);
        jb->b = malloc(jb->n + 1);
        jb->ref_b = malloc(jb->n + 1);
        jb->c = malloc(jb->m + 1);
        jb->ref_c = malloc(jb->m + 1);
        jb->blob = malloc(jb->v + 1);
        for (size_t i = 0; i < jb->n; i++)
            jb->a[i] = (unsigned char)test_rng(&rng);
        for (size_t i = 0; i < jb->m; i++)
            jb->c[i] = jb->ref_c[i] = (unsigned char)test_rng(&rng);
        for (size_t i = 0; i < jb->v; i++)
            jb->blob[i] = (unsigned char)test_rng(&rng);
        memset(jb->b, 0xAA, jb->n + 1);
        memset(jb->ref_b, 0xAA, jb->n + 1);
        jb->key = ((uint64_t)jb->n << 40) | ((uint64_t)jb->m << 16) | jb->v;
        void *ref_args[6] = {jb->a, &jb->key, jb->ref_b, jb->ref_c, jb->blob, NULL};
        mix(ref_args);
        tide_arg args[6] = {{jb->a, jb->n, TIDE_IN},       {&jb->key, sizeof jb->key, TIDE_VALUE},
                            {jb->b, jb->n, TIDE_OUT},      {jb->c, jb->m, TIDE_INOUT},
                            {jb->blob, jb->v, TIDE_VALUE}, {NULL, 0, TIDE_OUT}};
        tide_task *t;
        CHECK_OK(tide_task_create(&t, mix, 6, args));
        /* VALUE arguments are copied at creation: scribbling on them now must not matter. */
        uint64_t saved = jb->key;
        jb->key = 0;
        memset(jb->blob, 0, jb->v);
        CHECK_OK(tide_task_submit(t));
        jb->key = saved;
        for (size_t i = 0; i < jb->v; i++)
            jb->blob[i] = 0; /* stays zero: the task has a copy */
    }
    misaligned = 0; /* the reference calls above passed the application's own pointers */
    CHECK_OK(tide_taskwait());
    CHECK(misaligned == 0, "tasks saw %d argument pointers not aligned to 16 bytes", misaligned);
    for (int j = 0; j < NJ; j++) {
        job *jb = &jobs[j];
        CHECK(memcmp(jb->b, jb->ref_b, jb->n + 1) == 0, "job %d (n=%zu): OUT differs", j, jb->n);
        CHECK(memcmp(jb->c, jb->ref_c, jb->m) == 0, "job %d (m=%zu): INOUT differs", j, jb->m);
        free(jb->a), free(jb->b), free(jb->c), free(jb->blob), free(jb->ref_b), free(jb->ref_c);
    }
    tide_phase_stats st;
    CHECK_OK(tide_stats_last_phase(&st));
    CHECK(st.tasks == (int64_t)NJ * tide_size(), "phase counted %lld tasks", (long long)st.tasks);
    const char *expect = getenv("EXPECT_OFFLOADED");
    if (expect) {
        long want = atol(expect);
        CHECK(want < 0 ? st.offloaded > 0 : st.offloaded == want,
              "offloaded %lld tasks, expected %s", (long long)st.offloaded, expect);
    }
    CHECK_OK(tide_finalize());
    if (rank == 0) printf("offload identity: %d tasks per rank verified\n", NJ);
    return 0;
}
