/* A small JSON reader (json_doc.h): recursive descent over a buffer whose end is checked before
 * every byte is read, nesting bounded, strings decoded in place. */
#include "json_doc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct parser {
    char *buf;
    size_t len, pos;
    char *err;
    size_t errlen;
    bool failed;
} parser;

static bool fail_at(parser *p, const char *fmt, ...)
{
    if (p->failed) return false;
    p->failed = true;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++)
        line += p->buf[i] == '\n', col = p->buf[i] == '\n' ? 1 : col + 1;
    int n = snprintf(p->err, p->errlen, "%zu:%zu: ", line, col);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen) vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool out_of_memory(parser *p)
{
    if (!p->failed) snprintf(p->err, p->errlen, "out of memory");
    p->failed = true;
    return false;
}

static void skip_blanks(parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->buf[p->pos]) && p->buf[p->pos])
        p->pos++;
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->buf[p->pos] : -1;
}

static bool literal(parser *p, const char *word, json_value *v, json_type type)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->buf + p->pos, word, n) != 0)
        return fail_at(p, "expected a JSON value");
    p->pos += n;
    v->type = type;
    return true;
}

static size_t digits(parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && p->buf[p->pos] >= '0' && p->buf[p->pos] <= '9')
        p->pos++;
    return p->pos - start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(parser *p, json_value *v)
{
    size_t start = p->pos;
    if (peek(p) == '-') p->pos++;
    if (peek(p) == '0')
        p->pos++;
    else if (!digits(p))
        return fail_at(p, "expected a digit");
    if (peek(p) == '.') {
        p->pos++;
        if (!digits(p)) return fail_at(p, "expected a digit after the decimal point");
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-') p->pos++;
        if (!digits(p)) return fail_at(p, "expected a digit in the exponent");
    }
    v->type = JSON_NUMBER;
    v->text = p->buf + start;
    v->len = p->pos - start;
    return true;
}

static int hex4(parser *p)
{
    if (p->len - p->pos < 4) return -1;
    int x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->buf[p->pos + (size_t)i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        x = x * 16 + d;
    }
    p->pos += 4;
    return x;
}

/* Writes code point c as UTF-8 at *w (at most 4 bytes, never more than the escape it replaces). */
static void put_utf8(char **w, uint32_t c)
{
    unsigned char *o = (unsigned char *)*w;
    if (c < 0x80) {
        *o++ = (unsigned char)c;
    } else if (c < 0x800) {
        *o++ = (unsigned char)(0xC0 | c >> 6), *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *o++ = (unsigned char)(0xE0 | c >> 12), *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | c >> 18), *o++ = (unsigned char)(0x80 | (c >> 12 & 0x3F));
        *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F)), *o++ = (unsigned char)(0x80 | (c & 0x3F));
    }
    *w = (char *)o;
}

static bool unicode_escape(parser *p, char **w)
{
    int hi = hex4(p);
    if (hi < 0) return fail_at(p, "expected four hex digits after \\u");
    uint32_t c = (uint32_t)hi;
    if (hi >= 0xDC00 && hi <= 0xDFFF) return fail_at(p, "a lone low surrogate \\u%04X", hi);
    if (hi >= 0xD800 && hi <= 0xDBFF) {
        if (p->len - p->pos < 2 || p->buf[p->pos] != '\\' || p->buf[p->pos + 1] != 'u')
            return fail_at(p, "a high surrogate \\u%04X without its low half", hi);
        p->pos += 2;
        int lo = hex4(p);
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail_at(p, "a high surrogate \\u%04X without its low half", hi);
        c = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
    }
    put_utf8(w, c);
    return true;
}

/* After the opening quote. The decoded bytes overwrite the raw ones from the opening quote on:
 * the writer never passes the reader, so the closing quote is read before it is overwritten. */
static bool string(parser *p, const char **text, size_t *len)
{
    char *start = p->buf + p->pos, *w = start;
    for (;;) {
        int c = peek(p);
        if (c < 0) return fail_at(p, "the string has no closing quote");
        p->pos++;
        if (c == '"') break;
        if (c < 0x20) {
            p->pos--;
            return fail_at(p, "a control character (0x%02X) inside a string", c);
        }
        if (c != '\\') {
            *w++ = (char)c;
            continue;
        }
        int e = peek(p);
        p->pos++;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *hit = e > 0 ? strchr(from, e) : NULL;
        if (hit) {
            *w++ = to[hit - from];
        } else if (e == 'u') {
            if (!unicode_escape(p, &w)) return false;
        } else {
            p->pos--;
            return fail_at(p, "an unknown escape in a string");
        }
    }
    *w = 0;
    *text = start;
    *len = (size_t)(w - start);
    return true;
}

static bool value(parser *p, json_value *v, int depth);

static bool grow(parser *p, json_value *v, size_t *cap, bool keys)
{
    if (v->len < *cap) return true;
    size_t n = *cap ? 2 * *cap : 8;
    json_value *items = realloc(v->items, n * sizeof *items);
    if (!items) return out_of_memory(p);
    v->items = items;
    if (keys) {
        const char **k = realloc(v->keys, n * sizeof *k);
        if (!k) return out_of_memory(p);
        v->keys = k;
    }
    *cap = n;
    return true;
}

/* An array or an object, after its opening bracket; a member that failed is kept (zeroed) so
 * that json_free frees what it holds. */
static bool members(parser *p, json_value *v, int depth)
{
    bool obj = v->type == JSON_OBJECT;
    int close = obj ? '}' : ']';
    size_t cap = 0;
    skip_blanks(p);
    if (peek(p) == close) return p->pos++, true;
    for (;;) {
        if (!grow(p, v, &cap, obj)) return false;
        json_value *m = &v->items[v->len];
        memset(m, 0, sizeof *m);
        if (obj) {
            skip_blanks(p);
            if (peek(p) != '"') return fail_at(p, "expected a member name in quotes");
            p->pos++;
            size_t klen;
            v->keys[v->len] = NULL;
            if (!string(p, &v->keys[v->len], &klen)) return false;
            skip_blanks(p);
            if (peek(p) != ':') return fail_at(p, "expected ':' after a member name");
            p->pos++;
        }
        v->len++;
        if (!value(p, m, depth + 1)) return false;
        skip_blanks(p);
        int c = peek(p);
        if (c == close) return p->pos++, true;
        if (c != ',') return fail_at(p, "expected ',' or '%c'", close);
        p->pos++;
    }
}

static bool value(parser *p, json_value *v, int depth)
{
    if (depth > MAX_DEPTH) return fail_at(p, "nested deeper than %d levels", MAX_DEPTH);
    skip_blanks(p);
    int c = peek(p);
    switch (c) {
    case '{':
    case '[':
        p->pos++;
        v->type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        return members(p, v, depth);
    case '"':
        p->pos++;
        v->type = JSON_STRING;
        return string(p, &v->text, &v->len);
    case 'n':
        return literal(p, "null", v, JSON_NULL);
    case 't':
        return literal(p, "true", v, JSON_TRUE);
    case 'f':
        return literal(p, "false", v, JSON_FALSE);
    case -1:
        return fail_at(p, "the document ends where a value was expected");
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return number(p, v);
        return fail_at(p, "expected a JSON value");
    }
}

static void free_members(json_value *v)
{
    if (v->type != JSON_ARRAY && v->type != JSON_OBJECT) return;
    for (size_t i = 0; i < v->len; i++)
        free_members(&v->items[i]);
    free(v->items);
    free(v->keys);
}

json_value *json_parse(char *buf, size_t len, char *err, size_t errlen)
{
    parser p = {buf, len, 0, err, errlen, false};
    buf[len] = 0;
    json_value *root = calloc(1, sizeof *root);
    if (!root) return out_of_memory(&p), NULL;
    if (value(&p, root, 0)) {
        skip_blanks(&p);
        if (p.pos == len) return root;
        fail_at(&p, "text after the document's end");
    }
    json_free(root);
    return NULL;
}

void json_free(json_value *v)
{
    if (!v) return;
    free_members(v);
    free(v);
}

const json_value *json_get(const json_value *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->keys[i], key) == 0) return &v->items[i];
    return NULL;
}
