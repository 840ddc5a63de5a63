/* Error codes, their names, and the per-thread detail of the last failure. */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_message[512];

int tide_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return code;
}

const char *tide_last_error_message(void)
{
    return last_message;
}

const char *tide_strerror(int code)
{
    switch (code) {
    case TIDE_OK:
        return "success";
    case TIDE_ERR_INVALID:
        return "invalid argument";
    case TIDE_ERR_STATE:
        return "called in the wrong state";
    case TIDE_ERR_CONFIG:
        return "invalid configuration";
    case TIDE_ERR_NOMEM:
        return "out of memory";
    case TIDE_ERR_MPI:
        return "MPI error";
    case TIDE_ERR_MISMATCH:
        return "ranks run different executables";
    case TIDE_ERR_UNSUPPORTED:
        return "operation not supported";
    case TIDE_ERR_TOOL:
        return "tool library could not be loaded";
    default:
        return "unknown error code";
    }
}

_Noreturn void tide_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int rank = -1, inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (inited && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "tide: rank %d: fatal: %s\n", rank, msg);
    fflush(stderr);
    if (inited && !finalized) MPI_Abort(MPI_COMM_WORLD, 70);
    abort();
}
