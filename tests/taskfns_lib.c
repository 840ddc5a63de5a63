/* Task functions that live in shared libraries: one linked normally, one loaded with dlopen
 * after tide_init (built twice from this file with different names). */
#include <stdint.h>

#ifndef FN_NAME
#define FN_NAME lib_scale
#endif
#ifndef FACTOR
#define FACTOR 3
#endif

void FN_NAME(void **args)
{
    const int64_t *in = args[0];
    int64_t *out = args[1];
    *out = *in * FACTOR;
}
