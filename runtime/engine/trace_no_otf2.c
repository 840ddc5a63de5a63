/* A build without the OTF2 library: asking for an OTF2 trace fails at tide_init with one line. */
#include "trace_run.h"

int tide_trace_otf2_check(const char *path)
{
    return tide_fail(TIDE_ERR_CONFIG,
                     "TIDE_TRACE='%s' asks for OTF2, but this Tide was built without the OTF2 "
                     "library: install libotf2-trace-dev and rebuild, or write JSON "
                     "(TIDE_TRACE_FORMAT=json, or a path not ending in .otf2)",
                     path);
}

int tide_trace_write_otf2(const tide_trace_run *run, const char *path)
{
    (void)run;
    return tide_trace_otf2_check(path);
}
