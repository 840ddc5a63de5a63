/* The trace as an OTF2 archive (Vampir, Score-P's tools, otf2-print), built when CMake finds the
 * OTF2 library. TIDE_TRACE=dir/run.otf2 makes the anchor file dir/run.otf2 and the folder dir/run/.
 * Locations: per rank (a location group) its workers, its comm thread and its phases. Tasks are
 * the regions "task local", "task offloaded", "task replica" (attributes origin and seq); phases
 * the region "phase"; messages MpiSend and MpiRecv events inside the regions "send <kind>" and
 * "recv <kind>" of the comm thread, on one communicator of all ranks. Rank 0 writes it serially. */
#define _GNU_SOURCE
#include "trace_run.h"

#include <otf2/otf2.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Regions (and their names, which are strings of the same ids). */
enum {
    REG_LOCAL,
    REG_OFFLOADED,
    REG_REPLICA,
    REG_PHASE,
    REG_SEND_TASKS,
    REG_SEND_RESULT,
    REG_SEND_CONTROL,
    REG_RECV_TASKS,
    REG_RECV_RESULT,
    REG_RECV_CONTROL,
    NREGIONS
};
static const char *const region_names[NREGIONS] = {
    "task local",  "task offloaded", "task replica", "phase",       "send tasks",
    "send result", "send control",   "recv tasks",   "recv result", "recv control"};
enum { STR_ATTR_ORIGIN = NREGIONS, STR_ATTR_SEQ, STR_NODE, STR_COMM, STR_NAMES };
enum { ATTR_ORIGIN = 0, ATTR_SEQ = 1, GROUP_LOCATIONS = 0, GROUP_RANKS = 1, COMM_ALL = 0 };

/* Splits path into the archive's folder and name: "dir/run.otf2" -> "dir", "run". */
static void split(const char *path, char *dir, char *name, size_t len)
{
    const char *slash = strrchr(path, '/');
    snprintf(dir, len, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash && slash == path) snprintf(dir, len, "/");
    snprintf(name, len, "%s", slash ? slash + 1 : path);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".otf2") == 0) name[n - 5] = 0;
}

int tide_trace_otf2_check(const char *path)
{
    char dir[1024], name[1024], sub[2100];
    split(path, dir, name, sizeof dir);
    if (!name[0])
        return tide_fail(TIDE_ERR_CONFIG,
                         "TIDE_TRACE='%s' is invalid: expected a file name such "
                         "as run.otf2",
                         path);
    if (access(dir, W_OK) != 0)
        return tide_fail(TIDE_ERR_CONFIG, "TIDE_TRACE='%s' is unusable: cannot write in %s: %s",
                         path, dir, strerror(errno));
    snprintf(sub, sizeof sub, "%s/%s", dir, name);
    struct stat st;
    if (stat(sub, &st) == 0)
        return tide_fail(TIDE_ERR_CONFIG,
                         "TIDE_TRACE='%s' is unusable: %s exists (OTF2 writes a new archive; "
                         "remove the old one or choose another name)",
                         path, sub);
    return TIDE_OK;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush,
                                          .otf2_post_flush = post_flush};

typedef struct writer {
    const tide_trace_run *run;
    OTF2_Archive *archive;
    OTF2_AttributeList *attrs;
    double first; /* the earliest event: time 0 of the archive */
    uint64_t last, length;
} writer;

static uint64_t location_of(int rank, int buf)
{
    return (uint64_t)rank * 8192u + (uint64_t)buf;
}

/* Nanoseconds since the first event, never decreasing within a location. */
static uint64_t ticks(writer *w, int r, double local)
{
    double t = tide_trace_time(w->run, r, local) - w->first;
    uint64_t ns = t > 0 ? (uint64_t)(t * 1e9 + 0.5) : 0;
    if (ns < w->last) ns = w->last;
    w->last = ns;
    if (ns > w->length) w->length = ns;
    return ns;
}

static void write_event(writer *w, OTF2_EvtWriter *ew, int r, const tide_trace_event *e)
{
    uint64_t t0 = ticks(w, r, e->t0);
    int reg;
    switch (e->kind) {
    case TIDE_TEV_TASK:
        reg = e->flags & TIDE_TEV_COPY     ? REG_REPLICA
              : e->flags & TIDE_TEV_REMOTE ? REG_OFFLOADED
                                           : REG_LOCAL;
        OTF2_AttributeList_AddUint64(w->attrs, ATTR_ORIGIN, (uint64_t)e->peer);
        OTF2_AttributeList_AddUint64(w->attrs, ATTR_SEQ, e->id);
        OTF2_EvtWriter_Enter(ew, w->attrs, t0, (OTF2_RegionRef)reg);
        break;
    case TIDE_TEV_PHASE:
        reg = REG_PHASE;
        OTF2_EvtWriter_Enter(ew, NULL, t0, reg);
        break;
    case TIDE_TEV_SEND:
        reg = REG_SEND_TASKS + (e->flags - TIDE_MSG_TASKS);
        OTF2_EvtWriter_Enter(ew, NULL, t0, (OTF2_RegionRef)reg);
        OTF2_EvtWriter_MpiSend(ew, NULL, t0, (uint32_t)e->peer, COMM_ALL, 0, e->bytes);
        break;
    case TIDE_TEV_RECV:
        reg = REG_RECV_TASKS + (e->flags - TIDE_MSG_TASKS);
        OTF2_EvtWriter_Enter(ew, NULL, t0, (OTF2_RegionRef)reg);
        OTF2_EvtWriter_MpiRecv(ew, NULL, ticks(w, r, e->t0), (uint32_t)e->peer, COMM_ALL, 0,
                               e->bytes);
        break;
    default: /* plan moves and replicas: the JSON trace has them; OTF2 has no record for them */
        return;
    }
    OTF2_EvtWriter_Leave(ew, NULL, ticks(w, r, e->t1), (OTF2_RegionRef)reg);
}

/* Events of one location; returns how many records it wrote. */
static uint64_t write_location(writer *w, int r, int b)
{
    const tide_trace_rank *k = &w->run->rank[r];
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->archive, location_of(r, b));
    w->last = 0;
    for (uint64_t i = 0; i < k->n[b]; i++)
        write_event(w, ew, r, &k->event[b][i]);
    uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(ew, &n);
    OTF2_Archive_CloseEvtWriter(w->archive, ew);
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, location_of(r, b));
    OTF2_Archive_CloseDefWriter(w->archive, dw);
    return n;
}

static void earliest(writer *w)
{
    w->first = INFINITY;
    for (int r = 0; r < w->run->nranks; r++)
        for (int b = 0; b < w->run->rank[r].sum.nbuf; b++)
            for (uint64_t i = 0; i < w->run->rank[r].n[b]; i++) {
                double t = tide_trace_time(w->run, r, w->run->rank[r].event[b][i].t0);
                if (t < w->first) w->first = t;
            }
    if (w->first == INFINITY) w->first = 0;
}

static void define_fixed(OTF2_GlobalDefWriter *g)
{
    const char *strings[STR_NAMES - NREGIONS] = {"origin", "seq", "node", "ranks"};
    for (int i = 0; i < NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, region_names[i]);
    for (int i = NREGIONS; i < STR_NAMES; i++)
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, strings[i - NREGIONS]);
    for (int i = 0; i < NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, (OTF2_StringRef)i, (OTF2_StringRef)i,
                                         (OTF2_StringRef)i,
                                         i <= REG_REPLICA ? OTF2_REGION_ROLE_TASK
                                         : i == REG_PHASE ? OTF2_REGION_ROLE_CODE
                                                          : OTF2_REGION_ROLE_POINT2POINT,
                                         i > REG_PHASE ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                         OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
    OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_ORIGIN, STR_ATTR_ORIGIN, STR_ATTR_ORIGIN,
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_SEQ, STR_ATTR_SEQ, STR_ATTR_SEQ, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, STR_NODE, STR_NODE,
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
}

/* Ranks, their locations (with the number of records each holds), and the communicator of all
 * ranks whose members are the comm threads. */
static void define_ranks(writer *w, OTF2_GlobalDefWriter *g, uint64_t **nrec)
{
    OTF2_StringRef s = STR_NAMES;
    int n = w->run->nranks;
    uint64_t *comm_locs = malloc((size_t)n * sizeof *comm_locs);
    uint64_t *ranks = malloc((size_t)n * sizeof *ranks);
    if (!comm_locs || !ranks) tide_fatal("out of memory writing the OTF2 trace");
    char name[64];
    for (int r = 0; r < n; r++) {
        const tide_trace_rank *k = &w->run->rank[r];
        snprintf(name, sizeof name, "rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, s++,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        for (int b = 0; b < k->sum.nbuf; b++) {
            if (b < k->sum.threads)
                snprintf(name, sizeof name, "rank %d worker %d", r, b);
            else
                snprintf(name, sizeof name, "rank %d %s", r,
                         b == TIDE_TRACE_COMM_BUF(k->sum.threads) ? "comm thread" : "phases");
            OTF2_GlobalDefWriter_WriteString(g, s, name);
            OTF2_GlobalDefWriter_WriteLocation(g, location_of(r, b), s++,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, nrec[r][b],
                                               (OTF2_LocationGroupRef)r);
        }
        comm_locs[r] = location_of(r, TIDE_TRACE_COMM_BUF(k->sum.threads));
        ranks[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_LOCATIONS, STR_COMM, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)n,
                                    comm_locs);
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_RANKS, STR_COMM, OTF2_GROUP_TYPE_COMM_GROUP,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)n, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, COMM_ALL, STR_COMM, GROUP_RANKS, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    free(comm_locs);
    free(ranks);
}

static int write_archive(writer *w)
{
    int n = w->run->nranks;
    uint64_t **nrec = calloc((size_t)n, sizeof *nrec);
    if (!nrec) tide_fatal("out of memory writing the OTF2 trace");
    earliest(w);
    OTF2_Archive_OpenEvtFiles(w->archive);
    OTF2_Archive_OpenDefFiles(w->archive);
    for (int r = 0; r < n; r++) {
        nrec[r] = calloc((size_t)w->run->rank[r].sum.nbuf, sizeof **nrec);
        if (!nrec[r]) tide_fatal("out of memory writing the OTF2 trace");
        for (int b = 0; b < w->run->rank[r].sum.nbuf; b++)
            nrec[r][b] = write_location(w, r, b);
    }
    OTF2_Archive_CloseEvtFiles(w->archive);
    OTF2_Archive_CloseDefFiles(w->archive);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, w->length + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    define_fixed(g);
    define_ranks(w, g, nrec);
    for (int r = 0; r < n; r++)
        free(nrec[r]);
    free(nrec);
    return TIDE_OK;
}

int tide_trace_write_otf2(const tide_trace_run *run, const char *path)
{
    char dir[1024], name[1024];
    split(path, dir, name, sizeof dir);
    writer w = {.run = run};
    w.archive = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w.archive)
        return tide_fail(TIDE_ERR_INVALID, "TIDE_TRACE='%s': OTF2 could not create the archive",
                         path);
    w.attrs = OTF2_AttributeList_New();
    OTF2_Archive_SetFlushCallbacks(w.archive, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(w.archive);
    int rc = write_archive(&w);
    OTF2_AttributeList_Delete(w.attrs);
    if (OTF2_Archive_Close(w.archive) != OTF2_SUCCESS && rc == TIDE_OK)
        rc = tide_fail(TIDE_ERR_INVALID, "TIDE_TRACE='%s': OTF2 failed to close the archive", path);
    return rc;
}
