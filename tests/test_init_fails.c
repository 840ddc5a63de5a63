/* tide_init refuses what it cannot work with and says why: run under a bad environment
 * (TIDE_* value), a too-low MPI thread level (argument "funneled"), or as two different
 * executables (built twice from this file with another EXE_VARIANT). Exits 0 when tide_init
 * fails with the code named by EXPECT_CODE. */
#include "test_util.h"
#include "tide.h"

#include <mpi.h>
#include <stdbool.h>
#include <string.h>

#ifndef EXE_VARIANT
#define EXE_VARIANT 0
#endif
volatile int variant = EXE_VARIANT;

int main(int argc, char **argv)
{
    int want = atoi(getenv("EXPECT_CODE") ? getenv("EXPECT_CODE") : "0");
    bool funneled = argc > 1 && strcmp(argv[1], "funneled") == 0;
    if (funneled) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    }
    int rc = tide_init(&argc, &argv);
    CHECK(rc == want, "tide_init returned %d (%s: %s), expected %d", rc, tide_strerror(rc),
          tide_last_error_message(), want);
    if (funneled) {
        CHECK(strstr(tide_last_error_message(), "MPI_THREAD_FUNNELED") &&
                  strstr(tide_last_error_message(), "MPI_THREAD_MULTIPLE"),
              "message names both levels: %s", tide_last_error_message());
        MPI_Finalize();
    }
    if (rc == TIDE_OK) CHECK_OK(tide_finalize());
    return variant * 0;
}
