/* A small JSON reader for tide-predict's TIDE_STATS input (docs/stats.md): parses a whole
 * document held in memory into a tree of values. Strings are decoded in place (the buffer is
 * modified and must outlive the tree); numbers keep their text, so that a value printed with 17
 * digits is read back exactly by strtod and passed on unchanged as a knob value. Every length and
 * nesting level is checked; an error names the line and column. */
#ifndef TIDE_JSON_DOC_H
#define TIDE_JSON_DOC_H

#include <stddef.h>

typedef enum json_type {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
    json_type type;
    const char *text;  /* NUMBER: its text; STRING: its decoded bytes (NUL-terminated) */
    size_t len;        /* NUMBER, STRING: bytes of text; ARRAY, OBJECT: members */
    json_value *items; /* ARRAY, OBJECT: the members in document order */
    const char **keys; /* OBJECT: the members' names, decoded, NUL-terminated */
};

/* Parses buf[0 .. len) (buf[len] must be writable: it receives a NUL). Returns the root, or NULL
 * with one line in err ("LINE:COLUMN: what was expected"; "out of memory"). */
json_value *json_parse(char *buf, size_t len, char *err, size_t errlen);
void json_free(json_value *v);

/* The member called key of an OBJECT, NULL when v is no object or has none. */
const json_value *json_get(const json_value *v, const char *key);

#endif
