/* tide_knob.h - Tide's knobs as data. Every TIDE_* variable is one row of a table: its name, kind,
 * range or choices, default (as a user would write it), help, owner, and where its value goes (an
 * offset into the struct its owner parses into). One parser reads a value into any row, one
 * check tests a value already stored, and the docs (docs/config.md, tide-knobs --markdown) are
 * printed from the same rows, so they cannot drift apart.
 *
 * libtide (runtime, objects layer, strategies) and the predictor (also without libtide, in
 * tide-predict) share this small library; it has no state and allocates nothing.
 *
 * A table:
 *
 *   typedef struct my_params { int window; double guard; } my_params;
 *   static const tide_knob my_rows[] = {
 *       {.name = "TIDE_MY_WINDOW", .kind = TIDE_KNOB_INT, .def = "4", .min = 1, .max = 64,
 *        .help = "past loads the model uses", TIDE_KNOB_FIELD(my_params, window)},
 *   };
 *   const tide_knob_table my_table = {.title = "Mine", .owner = "mine", .rows = my_rows,
 *                                     .n = sizeof my_rows / sizeof *my_rows};
 *
 * Error lines name the variable, the value and what is allowed:
 *   TIDE_MY_WINDOW='0' is invalid: expected an integer in [1, 64] */
#ifndef TIDE_KNOB_H
#define TIDE_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the functions below return on a bad name or value: TIDE_ERR_CONFIG of tide.h and
 * TIDE_PRED_ERR_CONFIG of tide_predictor.h have this value. */
#define TIDE_KNOB_OK 0
#define TIDE_KNOB_ERR_CONFIG (-3)

typedef enum tide_knob_kind {
    TIDE_KNOB_INT,    /* a whole number in [min, max] */
    TIDE_KNOB_DOUBLE, /* a finite number in [min, max] (see the flags) */
    TIDE_KNOB_BYTES,  /* a positive byte count, optionally with suffix K, M or G (uint64_t) */
    TIDE_KNOB_CHOICE, /* one of `choices`: the field receives its index */
    TIDE_KNOB_NAME,   /* a name `known` accepts (a registry's), copied into a char array */
    TIDE_KNOB_PATH,   /* a non-empty string shorter than the char array it is copied into */
    TIDE_KNOB_CUSTOM  /* the row's own `set` (values with a special spelling) */
} tide_knob_kind;

/* The C type of the field an INT or CHOICE row writes. */
typedef enum tide_knob_store {
    TIDE_KNOB_STORE_INT = 0, /* int (also int32_t and enums) */
    TIDE_KNOB_STORE_U64,     /* uint64_t */
    TIDE_KNOB_STORE_DOUBLE   /* double (values that reach a strategy as doubles) */
} tide_knob_store;

/* DOUBLE rows: the range is (min, max] instead of [min, max]; 0 is allowed too ("0 = off"). */
enum { TIDE_KNOB_MIN_OPEN = 1u << 0, TIDE_KNOB_OR_ZERO = 1u << 1 };

typedef struct tide_knob tide_knob;

/* A CUSTOM row's parser: reads value into field (the row's offset applied) or writes one error
 * line (tide_knob_bad) and returns TIDE_KNOB_ERR_CONFIG. */
typedef int (*tide_knob_setter)(const tide_knob *k, void *field, const char *value, char *err,
                                size_t len);

struct tide_knob {
    const char *name; /* the environment variable, "TIDE_PRED_WINDOW" */
    tide_knob_kind kind;
    const char *def;   /* the default as a user writes it; NULL: unset (the field stays zero) */
    const char *unset; /* docs: what an unset knob means (NULL: "unset") */
    double min, max;   /* INT, DOUBLE */
    unsigned flags;    /* TIDE_KNOB_MIN_OPEN, TIDE_KNOB_OR_ZERO */
    const char *const *choices;  /* CHOICE: the names of values 0, 1, ..., NULL-terminated */
    bool (*known)(const char *); /* NAME: is this a registered name? */
    const char *(*names)(void);  /* NAME: the registered names, comma-separated */
    tide_knob_setter set;        /* CUSTOM */
    const char *allowed;         /* what errors say is expected, when the kind's words do not fit */
    const char *help;            /* one line for docs/config.md */
    const char *owner;           /* who reads it; NULL: the table's owner */
    const char *option;          /* a tool's command-line spelling ("--window"), or NULL */
    size_t offset, size;         /* the field: TIDE_KNOB_FIELD */
    tide_knob_store store;
};

#define TIDE_KNOB_FIELD(type, member)                                                              \
    .offset = offsetof(type, member), .size = sizeof(((type *)0)->member)

typedef struct tide_knob_table {
    const char *title;     /* the docs' section */
    const char *owner;     /* who reads the rows ("runtime", "predictor") unless a row says */
    const tide_knob *rows; /* rows[0 .. n) */
    size_t n;
    /* Names with this prefix belong to this table: an unknown one is "not <what>" (the
     * predictor's "TIDE_PRED_", "a predictor parameter"). NULL: none. */
    const char *prefix, *what;
} tide_knob_table;

/* A table and the struct its rows' offsets point into. */
typedef struct tide_knob_place {
    const tide_knob_table *table;
    void *base;
} tide_knob_place;

/* ---- parsing and checking (knob.c) ------------------------------------------------------- */

const tide_knob *tide_knob_find(const tide_knob_table *t, const char *name);
/* Reads value into row k's field of base. On a bad value the field keeps its value, err gets one
 * line, and TIDE_KNOB_ERR_CONFIG is returned. */
int tide_knob_parse(const tide_knob *k, void *base, const char *value, char *err, size_t len);
/* Finds name in the places and parses value there. An unknown name gets "NAME is not <what>",
 * where what is the `what` of a table whose prefix the name has, else the caller's, followed by
 * "; did you mean KNOB?" when a knob is within a typo's reach (tide_knob_guess_name). */
int tide_knob_set(const tide_knob_place *places, size_t n, const char *name, const char *value,
                  const char *what, char *err, size_t len);
/* Checks a value already stored in row k's field of base (a struct filled by code): INT, DOUBLE
 * and CHOICE rows; the same error line as the parser's, the value printed as stored. */
int tide_knob_check(const tide_knob *k, const void *base, char *err, size_t len);
/* Parses every row's default into base; TIDE_KNOB_ERR_CONFIG when one does not parse (a broken
 * table; err names the first), the other rows still get theirs. */
int tide_knob_defaults(const tide_knob_table *t, void *base, char *err, size_t len);
/* What errors of row k say is expected ("an integer in [1, 64]"); the docs print the same. */
void tide_knob_allowed(const tide_knob *k, char *buf, size_t len);
const char *tide_knob_owner(const tide_knob_table *t, const tide_knob *k);
/* Checks a table's rows: names, help, field sizes for their kind, ranges, no name twice, and that
 * every default parses. The docs generator and the tests call it. */
int tide_knob_table_valid(const tide_knob_table *t, char *err, size_t len);

/* For custom setters and checks across knobs: "NAME='value' is invalid: expected allowed". */
int tide_knob_bad(const char *name, const char *value, const char *allowed, char *err, size_t len);
/* A whole decimal number in [min, max] (no blanks, nothing after it). */
bool tide_knob_read_long(const char *value, long min, long max, long *out);
/* A byte count with an optional suffix K, M or G (powers of 1024): not 0, at most 2^34 - 1
 * units so that every suffix fits in 64 bits, no blanks, nothing after it. The parser of BYTES
 * rows; tools with byte options of their own call it too. */
bool tide_knob_read_bytes(const char *value, uint64_t *out);

/* ---- names no row has (knob_name.c) ------------------------------------------------------ */

/* Edit distance: insertions, deletions, substitutions and swaps of neighbours (the first 64
 * characters of each name). */
size_t tide_knob_distance(const char *a, const char *b);

typedef struct tide_knob_guess {
    const char *nearest; /* the nearest row's name, NULL when none is near enough to suggest */
    bool close;          /* nearest is within a typo's reach of the name: 1 edit for a name of
                            up to 4 characters after TIDE_, 2 up to 8, 3 beyond */
    bool owned; /* the name has a table's prefix (TIDE_PRED_): a knob that does not exist */
} tide_knob_guess;

/* What an unknown name probably is. A close or owned name is a misspelt knob (an error); any
 * other is another program's variable (a warning at most), nearest its did-you-mean. */
tide_knob_guess tide_knob_guess_name(const tide_knob_place *places, size_t n, const char *name);

/* ---- listings (knob_doc.c) --------------------------------------------------------------- */

/* One markdown section per table: a heading and a table of variable, default, allowed, owner
 * and meaning. */
void tide_knob_markdown(FILE *f, const tide_knob_table *const *tables, size_t n);
/* One JSON object: every knob's default as a user writes it (null when unset). */
void tide_knob_json_defaults(FILE *f, const tide_knob_table *const *tables, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_KNOB_H */
