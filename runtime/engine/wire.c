/* The wire format of task and result messages (docs/wire.md). Every field read from a message
 * is checked against the bytes actually received before it is used; a message that does not
 * add up is rejected, never partly trusted. Fields are read with memcpy so that a corrupted
 * message cannot cause a misaligned access either. */
#include "internal.h"

#include <stdarg.h>

#include <stdlib.h>
#include <string.h>

#define HDR_SIZE 32
#define TASK_REC 40
#define ARG_DESC 16
#define RESULT_REC 24
/* Argument bytes start at multiples of TIDE_WIRE_ALIGN from the message's start, which malloc
 * aligns at least as much: a task on a remote rank gets copies aligned for any C type
 * (alignof(max_align_t)), as malloc would give it. Records pad their fixed part to it. */
#define TIDE_WIRE_ALIGN 16u
#define PADA(x) (((x) + (TIDE_WIRE_ALIGN - 1)) & ~(uint64_t)(TIDE_WIRE_ALIGN - 1))
_Static_assert(HDR_SIZE % TIDE_WIRE_ALIGN == 0, "records start aligned");
_Static_assert(_Alignof(max_align_t) >= TIDE_WIRE_ALIGN, "malloc aligns message buffers");

_Static_assert(sizeof(tide_wire_header) == HDR_SIZE, "wire header layout");

static bool carries_input(int mode)
{
    return mode == TIDE_IN || mode == TIDE_INOUT || mode == TIDE_VALUE;
}

static bool carries_output(int mode)
{
    return mode == TIDE_OUT || mode == TIDE_INOUT;
}

static void put(unsigned char **p, const void *v, size_t n)
{
    memcpy(*p, v, n);
    *p += n;
}

/* The fixed part of a task record (record, descriptors, features) with its padding. */
static size_t task_head(uint64_t nargs, uint64_t nfeat)
{
    return PADA(TASK_REC + nargs * ARG_DESC + nfeat * sizeof(double));
}

/* The fixed part of a result record (record, output sizes) with its padding. */
static size_t result_head(uint64_t nargs)
{
    return PADA(RESULT_REC + 8 * nargs);
}

size_t tide_wire_task_size(const tide_task *t)
{
    size_t n = task_head((uint64_t)t->nargs, (uint64_t)t->nfeat);
    for (int i = 0; i < t->nargs; i++)
        if (carries_input(t->args[i].mode)) n += PADA(t->args[i].size);
    return n;
}

size_t tide_wire_put_task(unsigned char *dst, const tide_task *t, tide_fnid id)
{
    unsigned char *p = dst;
    uint64_t seq = t->seq;
    int32_t origin = t->origin;
    uint32_t nargs = (uint32_t)t->nargs, nfeat = (uint32_t)t->nfeat, zero = 0;
    put(&p, &seq, 8);
    put(&p, &origin, 4);
    put(&p, &nargs, 4);
    put(&p, &nfeat, 4);
    put(&p, &zero, 4);
    put(&p, &id.module, 8);
    put(&p, &id.offset, 8);
    for (int i = 0; i < t->nargs; i++) {
        uint32_t mode = (uint32_t)t->args[i].mode;
        uint64_t size = t->args[i].size;
        put(&p, &mode, 4);
        put(&p, &zero, 4);
        put(&p, &size, 8);
    }
    put(&p, t->features, (size_t)t->nfeat * sizeof(double));
    size_t pad = task_head((uint64_t)nargs, (uint64_t)nfeat) - (size_t)(p - dst);
    memset(p, 0, pad);
    p += pad;
    for (int i = 0; i < t->nargs; i++) {
        if (!carries_input(t->args[i].mode)) continue;
        size_t size = t->args[i].size;
        if (size) memcpy(p, t->args[i].ptr, size); /* the one pack copy */
        memset(p + size, 0, PADA(size) - size);
        p += PADA(size);
    }
    return (size_t)(p - dst);
}

void tide_wire_put_header(unsigned char *dst, int kind, uint32_t count, uint32_t phase,
                          uint64_t payload_len, int src)
{
    tide_wire_header h = {
        TIDE_WIRE_MAGIC, TIDE_WIRE_VERSION, (uint16_t)kind, count, phase, payload_len, src, 0};
    memcpy(dst, &h, sizeof h);
}

int tide_wire_check_header(const unsigned char *buf, size_t len, tide_wire_header *h, char *err,
                           size_t errlen)
{
    if (len < HDR_SIZE) {
        snprintf(err, errlen, "message of %zu bytes is shorter than the %d-byte header", len,
                 HDR_SIZE);
        return TIDE_ERR_INVALID;
    }
    memcpy(h, buf, sizeof *h);
    if (h->magic != TIDE_WIRE_MAGIC) {
        snprintf(err, errlen, "bad magic 0x%08x (not a Tide message, or another byte order)",
                 h->magic);
        return TIDE_ERR_INVALID;
    }
    if (h->version != TIDE_WIRE_VERSION) {
        snprintf(err, errlen,
                 "protocol version %u, this build speaks %d (ranks built from "
                 "different sources?)",
                 h->version, TIDE_WIRE_VERSION);
        return TIDE_ERR_INVALID;
    }
    if (h->kind != TIDE_MSG_TASKS && h->kind != TIDE_MSG_RESULT && h->kind != TIDE_MSG_CONTROL) {
        snprintf(err, errlen, "unknown message kind %u", h->kind);
        return TIDE_ERR_INVALID;
    }
    if (h->payload_len != len - HDR_SIZE) {
        snprintf(err, errlen, "header announces %llu payload bytes, message carries %zu",
                 (unsigned long long)h->payload_len, len - HDR_SIZE);
        return TIDE_ERR_INVALID;
    }
    if (h->kind == TIDE_MSG_CONTROL) {
        if (h->count != 1 || h->payload_len != sizeof(tide_control)) {
            snprintf(err, errlen, "control message with %u records and %llu bytes", h->count,
                     (unsigned long long)h->payload_len);
            return TIDE_ERR_INVALID;
        }
        return TIDE_OK;
    }
    uint64_t min_rec = h->kind == TIDE_MSG_TASKS ? TASK_REC : RESULT_REC;
    if (h->count == 0 || h->count > h->payload_len / min_rec ||
        (h->kind == TIDE_MSG_RESULT && h->count != 1)) {
        snprintf(err, errlen, "record count %u does not fit a %s message of %llu bytes", h->count,
                 h->kind == TIDE_MSG_TASKS ? "tasks" : "result",
                 (unsigned long long)h->payload_len);
        return TIDE_ERR_INVALID;
    }
    return TIDE_OK;
}

/* A cursor over the payload that refuses to move past its end. */
typedef struct cursor {
    const unsigned char *p;
    uint64_t left;
} cursor;

static bool take(cursor *c, void *dst, uint64_t n)
{
    if (n > c->left) return false;
    if (dst) memcpy(dst, c->p, n);
    c->p += n;
    c->left -= n;
    return true;
}

/* A task record's fixed part and argument descriptors, checked before anything is built. */
typedef struct record {
    uint64_t seq, fmod, foff;
    int32_t origin;
    uint32_t nargs, nfeat;
    uint32_t modes[TIDE_MAX_ARGS];
    uint64_t sizes[TIDE_MAX_ARGS];
    uint64_t in_bytes, out_bytes;
} record;

static int bad_record(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_record(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

static int read_head(cursor *c, record *r, char *err, size_t errlen)
{
    uint32_t pad;
    if (!take(c, &r->seq, 8) || !take(c, &r->origin, 4) || !take(c, &r->nargs, 4) ||
        !take(c, &r->nfeat, 4) || !take(c, &pad, 4) || !take(c, &r->fmod, 8) ||
        !take(c, &r->foff, 8))
        return bad_record(err, errlen, TIDE_ERR_INVALID, "task record truncated");
    if (r->nargs > TIDE_MAX_ARGS || r->nfeat > TIDE_MAX_FEATURES)
        return bad_record(err, errlen, TIDE_ERR_INVALID,
                          "task record with %u arguments and %u features (limits %d, %d)", r->nargs,
                          r->nfeat, TIDE_MAX_ARGS, TIDE_MAX_FEATURES);
    return TIDE_OK;
}

static int read_descriptors(cursor *c, record *r, char *err, size_t errlen)
{
    uint32_t pad;
    r->in_bytes = r->out_bytes = 0;
    for (uint32_t i = 0; i < r->nargs; i++) {
        if (!take(c, &r->modes[i], 4) || !take(c, &pad, 4) || !take(c, &r->sizes[i], 8))
            return bad_record(err, errlen, TIDE_ERR_INVALID, "argument descriptors truncated");
        if (r->modes[i] < TIDE_IN || r->modes[i] > TIDE_VALUE)
            return bad_record(err, errlen, TIDE_ERR_INVALID, "argument %u has unknown mode %u", i,
                              r->modes[i]);
        /* Inputs must lie in this message; outputs must not exceed what a message could hold. */
        if (r->sizes[i] > ((uint64_t)1 << 40) ||
            (carries_input((int)r->modes[i]) && PADA(r->sizes[i]) > c->left))
            return bad_record(err, errlen, TIDE_ERR_INVALID,
                              "argument %u claims %llu bytes, the message has %llu left", i,
                              (unsigned long long)r->sizes[i], (unsigned long long)c->left);
        if (carries_output((int)r->modes[i])) r->out_bytes += PADA(r->sizes[i]);
        if (carries_input((int)r->modes[i])) r->in_bytes += PADA(r->sizes[i]);
    }
    /* Each size is below 2^40 and there are at most TIDE_MAX_ARGS: the sums cannot overflow. */
    uint64_t rest = task_head(r->nargs, r->nfeat) - TASK_REC - (uint64_t)r->nargs * ARG_DESC;
    if (r->in_bytes + rest > c->left) /* rest: the features and the padding after them */
        return bad_record(err, errlen, TIDE_ERR_INVALID,
                          "arguments claim %llu input bytes, the message has %llu left",
                          (unsigned long long)r->in_bytes, (unsigned long long)c->left);
    if (HDR_SIZE + result_head(r->nargs) + r->out_bytes > (uint64_t)INT32_MAX)
        return bad_record(err, errlen, TIDE_ERR_INVALID,
                          "task outputs of %llu bytes exceed the 2 GiB message limit",
                          (unsigned long long)r->out_bytes);
    return TIDE_OK;
}

/* Points the task's arguments at the received message (IN, VALUE: read in place) or at its
 * result message (OUT, INOUT), and writes the result record's id and output sizes. */
static void bind_arguments(cursor *c, const record *r, tide_task *t)
{
    unsigned char *rec = t->result + HDR_SIZE;
    memset(rec, 0, RESULT_REC);
    memcpy(rec, &r->seq, 8);
    memcpy(rec + 8, &r->origin, 4);
    memcpy(rec + 12, &r->nargs, 4);
    unsigned char *rsizes = rec + RESULT_REC;
    unsigned char *rdata = rec + result_head(r->nargs);
    memset(rsizes + 8ull * r->nargs, 0, (size_t)(rdata - rsizes) - 8ull * r->nargs);
    for (uint32_t i = 0; i < r->nargs; i++) {
        int mode = (int)r->modes[i];
        uint64_t size = r->sizes[i], outsz = carries_output(mode) ? size : 0;
        memcpy(rsizes + 8ull * i, &outsz, 8);
        t->args[i] = (tide_arg){NULL, (size_t)size, (tide_arg_mode)mode};
        if (carries_output(mode)) {
            t->args[i].ptr = rdata;
            memset(rdata + size, 0, PADA(size) - size);
            rdata += PADA(size);
        }
        if (carries_input(mode)) {
            const unsigned char *src = c->p;
            take(c, NULL, PADA(size)); /* in_bytes was checked against the message */
            if (mode == TIDE_INOUT) {
                if (size) memcpy(t->args[i].ptr, src, size); /* the one unpack copy */
            } else {
                t->args[i].ptr = (void *)src; /* IN and VALUE: read in place, no copy */
            }
        }
        if (size == 0 && mode != TIDE_OUT && mode != TIDE_INOUT) t->args[i].ptr = NULL;
        t->argv[i] = t->args[i].ptr;
    }
}

static int decode_one(cursor *c, tide_rbuf *b, tide_task **out, char *err, size_t errlen)
{
    record r = {0};
    int rc = read_head(c, &r, err, errlen);
    if (rc == TIDE_OK) rc = read_descriptors(c, &r, err, errlen);
    if (rc != TIDE_OK) return rc;
    tide_task_fn fn = tide_fnid_resolve((tide_fnid){r.fmod, r.foff});
    if (!fn)
        return bad_record(err, errlen, TIDE_ERR_INVALID,
                          "task function (object %016llx, offset %llu) is not loaded here",
                          (unsigned long long)r.fmod, (unsigned long long)r.foff);
    tide_task *t = tide_task_alloc((int)r.nargs, 0, NULL);
    size_t rlen = HDR_SIZE + result_head(r.nargs) + r.out_bytes;
    unsigned char *res = t ? malloc(rlen) : NULL;
    if (!res) {
        free(t);
        return bad_record(err, errlen, TIDE_ERR_NOMEM, "out of memory for a received task");
    }
    t->fn = fn;
    t->seq = r.seq;
    t->origin = r.origin;
    t->remote = true;
    t->nfeat = (int)r.nfeat;
    t->result = res;
    t->result_len = rlen;
    uint64_t fbytes = (uint64_t)r.nfeat * sizeof(double);
    uint64_t pad = task_head(r.nargs, r.nfeat) - TASK_REC - (uint64_t)r.nargs * ARG_DESC - fbytes;
    if (!take(c, t->features, fbytes) || !take(c, NULL, pad)) {
        tide_task_free(t);
        return bad_record(err, errlen, TIDE_ERR_INVALID, "features truncated");
    }
    bind_arguments(c, &r, t);
    atomic_fetch_add(&b->refs, 1);
    t->rbuf = b;
    *out = t;
    return TIDE_OK;
}

int tide_wire_decode_tasks(tide_rbuf *b, const tide_wire_header *h, tide_task **out, char *err,
                           size_t errlen)
{
    cursor c = {b->data + HDR_SIZE, h->payload_len};
    uint32_t n = 0;
    int rc = TIDE_OK;
    for (; n < h->count; n++) {
        rc = decode_one(&c, b, &out[n], err, errlen);
        if (rc != TIDE_OK) break;
    }
    if (rc == TIDE_OK && c.left != 0) {
        snprintf(err, errlen, "%llu bytes left over after %u task records",
                 (unsigned long long)c.left, h->count);
        rc = TIDE_ERR_INVALID;
    }
    if (rc != TIDE_OK)
        for (uint32_t i = 0; i < n; i++) {
            tide_task_free(out[i]);
            out[i] = NULL;
        }
    return rc;
}

int tide_wire_result_id(const unsigned char *buf, const tide_wire_header *h, int *origin,
                        uint64_t *seq, char *err, size_t errlen)
{
    if (h->payload_len < RESULT_REC) {
        snprintf(err, errlen, "result record truncated");
        return TIDE_ERR_INVALID;
    }
    int32_t o;
    memcpy(seq, buf + HDR_SIZE, 8);
    memcpy(&o, buf + HDR_SIZE + 8, 4);
    *origin = o;
    return TIDE_OK;
}

int tide_wire_apply_result(const unsigned char *buf, const tide_wire_header *h, tide_task *t,
                           char *err, size_t errlen)
{
    cursor c = {buf + HDR_SIZE, h->payload_len};
    uint64_t seq;
    int32_t origin;
    uint32_t nargs;
    double time;
    if (!take(&c, &seq, 8) || !take(&c, &origin, 4) || !take(&c, &nargs, 4) ||
        !take(&c, &time, 8)) {
        snprintf(err, errlen, "result record truncated");
        return TIDE_ERR_INVALID;
    }
    if (nargs != (uint32_t)t->nargs || seq != t->seq || origin != t->origin) {
        snprintf(err, errlen,
                 "result for task %d:%llu with %u arguments answers task %d:%llu "
                 "with %d",
                 origin, (unsigned long long)seq, nargs, t->origin, (unsigned long long)t->seq,
                 t->nargs);
        return TIDE_ERR_INVALID;
    }
    const unsigned char *sizes = c.p;
    if (!take(&c, NULL, result_head(nargs) - RESULT_REC)) { /* the sizes and their padding */
        snprintf(err, errlen, "result sizes truncated");
        return TIDE_ERR_INVALID;
    }
    /* Check every size before copying anything, so a bad message changes no application data. */
    uint64_t need = 0;
    for (uint32_t i = 0; i < nargs; i++) {
        uint64_t sz;
        memcpy(&sz, sizes + 8ull * i, 8);
        uint64_t expect = carries_output(t->args[i].mode) ? t->args[i].size : 0;
        if (sz != expect) {
            snprintf(err, errlen, "result argument %u has %llu bytes, expected %llu", i,
                     (unsigned long long)sz, (unsigned long long)expect);
            return TIDE_ERR_INVALID;
        }
        need += PADA(sz);
    }
    if (need != c.left) {
        snprintf(err, errlen, "result carries %llu data bytes, expected %llu",
                 (unsigned long long)c.left, (unsigned long long)need);
        return TIDE_ERR_INVALID;
    }
    if (!(time >= 0.0 && time < 1e9)) {
        snprintf(err, errlen, "result reports execution time %g", time);
        return TIDE_ERR_INVALID;
    }
    for (int i = 0; i < t->nargs; i++) {
        if (!carries_output(t->args[i].mode)) continue;
        if (t->args[i].size) memcpy(t->args[i].ptr, c.p, t->args[i].size); /* unpack copy */
        take(&c, NULL, PADA(t->args[i].size));
    }
    t->exec_time = time;
    return TIDE_OK;
}

void tide_wire_finish_result(tide_task *t, uint32_t phase, int me)
{
    tide_wire_put_header(t->result, TIDE_MSG_RESULT, 1, phase, t->result_len - HDR_SIZE, me);
    memcpy(t->result + HDR_SIZE + 16, &t->exec_time, 8);
}
