/* The wire decoder accepts what the encoder writes and rejects every truncated or corrupted
 * message with a message, without reading or writing out of bounds (run it under ASan: the
 * sanitizer configuration does). No MPI is needed: these are pure functions. */
#include "internal.h"
#include "test_util.h"

#include <string.h>

static void body(void **args)
{
    (void)args;
}

enum { NIN = 100, NOUT = 50, NINOUT = 30 };
static unsigned char in[NIN], out[NOUT], inout[NINOUT];
static uint64_t value = 0x1122334455667788ull;

static tide_task *make_task(uint64_t seq)
{
    tide_arg args[5] = {{in, NIN, TIDE_IN},
                        {out, NOUT, TIDE_OUT},
                        {inout, NINOUT, TIDE_INOUT},
                        {&value, sizeof value, TIDE_VALUE},
                        {NULL, 0, TIDE_IN}};
    tide_task *t = tide_task_alloc(5, 0, NULL);
    CHECK(t, "alloc");
    t->fn = body;
    t->seq = seq;
    t->origin = 3;
    t->nfeat = seq % 2 ? 3 : 2; /* an odd count pads the record's fixed part */
    t->features[0] = 1.5;
    t->features[1] = -2;
    t->features[2] = 7;
    for (int i = 0; i < 5; i++)
        t->args[i] = args[i], t->argv[i] = args[i].ptr;
    return t;
}

/* Encodes two tasks into one TASKS message; returns its length. */
static size_t encode(unsigned char **buf, tide_task **tasks)
{
    tide_fnid id;
    CHECK_OK(tide_fnid_of(body, &id));
    size_t len =
        sizeof(tide_wire_header) + tide_wire_task_size(tasks[0]) + tide_wire_task_size(tasks[1]);
    *buf = malloc(len);
    size_t off = sizeof(tide_wire_header);
    off += tide_wire_put_task(*buf + off, tasks[0], id);
    off += tide_wire_put_task(*buf + off, tasks[1], id);
    CHECK(off == len, "encoded %zu bytes, expected %zu", off, len);
    tide_wire_put_header(*buf, TIDE_MSG_TASKS, 2, 0, len - sizeof(tide_wire_header), 3);
    return len;
}

/* Decodes a copy of msg[0..len); returns the status and frees what was decoded. */
static int try_decode(const unsigned char *msg, size_t len, char *err, size_t errlen)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, msg, len);
    tide_wire_header h;
    int rc = tide_wire_check_header(copy, len, &h, err, errlen);
    if (rc != TIDE_OK) {
        free(copy);
        return rc;
    }
    tide_rbuf *b = malloc(sizeof *b);
    atomic_init(&b->refs, 1);
    b->data = copy;
    b->len = len;
    tide_task *tasks[64] = {0};
    rc = h.kind == TIDE_MSG_TASKS && h.count <= 64
             ? tide_wire_decode_tasks(b, &h, tasks, err, errlen)
             : TIDE_ERR_INVALID;
    for (int i = 0; i < 64; i++)
        tide_task_free(tasks[i]);
    tide_rbuf_release(b);
    return rc;
}

int main(void)
{
    CHECK_OK(tide_fnid_init());
    for (int i = 0; i < NIN; i++)
        in[i] = (unsigned char)(i * 7);
    for (int i = 0; i < NINOUT; i++)
        inout[i] = (unsigned char)(100 + i);
    tide_task *orig[2] = {make_task(10), make_task(11)};
    unsigned char *msg;
    size_t len = encode(&msg, orig);
    char err[256];

    /* Round trip: a valid message decodes to the same tasks. */
    unsigned char *copy = malloc(len);
    memcpy(copy, msg, len);
    tide_wire_header h;
    CHECK(tide_wire_check_header(copy, len, &h, err, sizeof err) == TIDE_OK, "%s", err);
    tide_rbuf *b = malloc(sizeof *b);
    atomic_init(&b->refs, 1);
    b->data = copy;
    b->len = len;
    tide_task *got[2];
    CHECK(tide_wire_decode_tasks(b, &h, got, err, sizeof err) == TIDE_OK, "%s", err);
    CHECK(got[1]->seq == 11 && got[1]->origin == 3 && got[1]->fn == body, "ids");
    CHECK(got[0]->nfeat == 2 && got[0]->features[1] == -2, "features");
    CHECK(memcmp(got[0]->argv[0], in, NIN) == 0, "IN data");
    CHECK(memcmp(got[0]->argv[2], inout, NINOUT) == 0, "INOUT data");
    CHECK(*(uint64_t *)got[0]->argv[3] == value, "VALUE data");
    CHECK(got[0]->argv[4] == NULL, "empty argument");
    CHECK(got[1]->nfeat == 3 && got[1]->features[2] == 7, "odd feature count");
    CHECK(memcmp(got[1]->argv[0], in, NIN) == 0 && *(uint64_t *)got[1]->argv[3] == value,
          "second task's data");
    /* Copies on the remote rank are aligned as malloc aligns (docs/wire.md), in and out. */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++)
            CHECK((uintptr_t)got[k]->argv[i] % 16 == 0, "task %d argument %d at %p", k, i,
                  got[k]->argv[i]);

    /* The remote side runs the task, the origin applies the result. */
    memset(got[0]->argv[1], 0x5A, NOUT);
    memset(got[0]->argv[2], 0x33, NINOUT);
    got[0]->exec_time = 0.25;
    tide_wire_finish_result(got[0], 0, 1);
    tide_wire_header rh;
    CHECK(tide_wire_check_header(got[0]->result, got[0]->result_len, &rh, err, sizeof err) ==
              TIDE_OK,
          "%s", err);
    int origin;
    uint64_t seq;
    CHECK_OK(tide_wire_result_id(got[0]->result, &rh, &origin, &seq, err, sizeof err));
    CHECK(origin == 3 && seq == 10, "result id");

    /* A result whose sizes do not match the task changes no application byte. */
    unsigned char *bad = malloc(got[0]->result_len);
    memcpy(bad, got[0]->result, got[0]->result_len);
    uint64_t wrong = NOUT + 8;
    memcpy(bad + 32 + 24 + 8, &wrong, 8);
    CHECK(tide_wire_apply_result(bad, &rh, orig[0], err, sizeof err) != TIDE_OK, "bad sizes");
    CHECK(out[0] == 0 && inout[0] == 100, "rejected result touched application data");
    CHECK(strstr(err, "expected") != NULL, "message: %s", err);
    free(bad);
    CHECK(tide_wire_apply_result(got[0]->result, &rh, orig[1], err, sizeof err) != TIDE_OK,
          "result applied to the wrong task");
    CHECK(tide_wire_apply_result(got[0]->result, &rh, orig[0], err, sizeof err) == TIDE_OK, "%s",
          err);
    CHECK(out[0] == 0x5A && out[NOUT - 1] == 0x5A && inout[0] == 0x33, "outputs copied home");
    CHECK(orig[0]->exec_time == 0.25, "execution time travels");
    tide_task_free(got[0]);
    tide_task_free(got[1]);
    tide_rbuf_release(b);

    /* Every truncation is rejected. */
    for (size_t l = 0; l < len; l++)
        CHECK(try_decode(msg, l, err, sizeof err) != TIDE_OK, "truncated to %zu accepted", l);

    /* Targeted corruptions, each with its own diagnosis. */
    struct {
        size_t off;
        uint64_t val;
        int width;
        const char *why;
    } cases[] = {
        {0, 0xdeadbeef, 4, "bad magic"},
        {4, 9, 2, "protocol version"},
        {6, 77, 2, "unknown message kind"},
        {8, 1000000, 4, "record count"},
        {16, 5, 8, "announces"},
        {32 + 12, 999, 4, "arguments"},             /* nargs of the first task */
        {32 + 40, 17, 4, "unknown mode"},           /* mode of argument 0 */
        {32 + 40 + 8, 1ull << 50, 8, "claims"},     /* size of argument 0 */
        {32 + 40 + 8, NIN + 4000, 8, "claims"},     /* size past the message */
        {32 + 24, 0x1234567, 8, "not loaded here"}, /* function identity */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *c = malloc(len);
        memcpy(c, msg, len);
        memcpy(c + cases[i].off, &cases[i].val, (size_t)cases[i].width);
        err[0] = 0;
        CHECK(try_decode(c, len, err, sizeof err) != TIDE_OK, "corruption '%s' accepted",
              cases[i].why);
        CHECK(strstr(err, cases[i].why) != NULL, "corruption '%s' diagnosed as: %s", cases[i].why,
              err);
        free(c);
    }

    /* Random byte flips: rejected or decoded, never out of bounds (ASan watches). */
    uint64_t rng = 5;
    for (int k = 0; k < 20000; k++) {
        unsigned char *c = malloc(len);
        memcpy(c, msg, len);
        int flips = 1 + (int)(test_rng(&rng) % 4);
        for (int f = 0; f < flips; f++)
            c[test_rng(&rng) % len] ^= (unsigned char)(1 + test_rng(&rng) % 255);
        try_decode(c, len, err, sizeof err);
        free(c);
    }
    free(msg);
    tide_task_free(orig[0]);
    tide_task_free(orig[1]);
    tide_fnid_finalize();
    printf("wire: round trip, %zu truncations, %zu corruptions and 20000 random flips checked\n",
           len, sizeof cases / sizeof *cases);
    return 0;
}
