/* The one parser of Tide's knobs: a value is read by its row's kind, range checked, and stored
 * at the row's offset; a bad one gives one line naming the variable, the value and what is
 * allowed, and leaves the field as it was. */
#include "tide_knob.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tide_knob_bad(const char *name, const char *value, const char *allowed, char *err, size_t len)
{
    if (err && len) snprintf(err, len, "%s='%s' is invalid: expected %s", name, value, allowed);
    return TIDE_KNOB_ERR_CONFIG;
}

bool tide_knob_read_long(const char *v, long min, long max, long *out)
{
    if (!*v || isspace((unsigned char)*v)) return false;
    errno = 0;
    char *end;
    long l = strtol(v, &end, 10);
    if (errno || *end || l < min || l > max) return false;
    *out = l;
    return true;
}

static bool read_double(const char *v, double *out)
{
    if (!*v || isspace((unsigned char)*v)) return false;
    errno = 0;
    char *end;
    double d = strtod(v, &end);
    if (errno || *end || !isfinite(d)) return false;
    *out = d;
    return true;
}

bool tide_knob_read_bytes(const char *v, uint64_t *out)
{
    if (!isdigit((unsigned char)*v)) return false;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K')
        shift = 10, end++;
    else if (*end == 'M')
        shift = 20, end++;
    else if (*end == 'G')
        shift = 30, end++;
    if (errno || *end || n == 0 || n > (UINT64_MAX >> 30)) return false;
    *out = (uint64_t)n << shift;
    return true;
}

static bool double_in_range(const tide_knob *k, double d)
{
    if (!isfinite(d)) return false;
    if ((k->flags & TIDE_KNOB_OR_ZERO) && d == 0) return true;
    bool above = k->flags & TIDE_KNOB_MIN_OPEN ? d > k->min : d >= k->min;
    return above && d <= k->max;
}

static int choice_index(const char *const *choices, const char *v)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(v, choices[i]) == 0) return i;
    return -1;
}

static size_t choice_count(const char *const *choices)
{
    size_t n = 0;
    while (choices[n])
        n++;
    return n;
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    if (used + 1 < len) snprintf(buf + used, len - used, "%s", s);
}

void tide_knob_allowed(const tide_knob *k, char *buf, size_t len)
{
    if (k->allowed) {
        snprintf(buf, len, "%s", k->allowed);
        return;
    }
    switch (k->kind) {
    case TIDE_KNOB_INT:
        snprintf(buf, len, "an integer in [%ld, %ld]", (long)k->min, (long)k->max);
        return;
    case TIDE_KNOB_DOUBLE:
        snprintf(buf, len, "%sa number in %c%g, %g]",
                 k->flags & TIDE_KNOB_OR_ZERO ? "0 (off) or " : "",
                 k->flags & TIDE_KNOB_MIN_OPEN ? '(' : '[', k->min, k->max);
        return;
    case TIDE_KNOB_BYTES:
        snprintf(buf, len, "a positive byte count, optionally with suffix K, M or G (e.g. 64M)");
        return;
    case TIDE_KNOB_CHOICE:
        snprintf(buf, len, "one of");
        for (int i = 0; k->choices[i]; i++) {
            append(buf, len, i ? ", " : " ");
            append(buf, len, k->choices[i]);
        }
        return;
    case TIDE_KNOB_NAME:
        snprintf(buf, len, "one of %s", k->names());
        return;
    case TIDE_KNOB_PATH:
        snprintf(buf, len, "a path shorter than %zu bytes", k->size);
        return;
    case TIDE_KNOB_CUSTOM:
        snprintf(buf, len, "a value %s accepts", k->name);
        return;
    }
}

const char *tide_knob_owner(const tide_knob_table *t, const tide_knob *k)
{
    return k->owner ? k->owner : t->owner;
}

/* INT and CHOICE values go into an int, a uint64_t or a double, as the row says. */
static void store_long(const tide_knob *k, void *field, long v)
{
    if (k->store == TIDE_KNOB_STORE_U64)
        *(uint64_t *)field = (uint64_t)v;
    else if (k->store == TIDE_KNOB_STORE_DOUBLE)
        *(double *)field = (double)v;
    else
        *(int *)field = (int)v;
}

/* The stored INT or CHOICE value, and its text as the error line shows it. */
static double load_number(const tide_knob *k, const void *field, char *text, size_t len)
{
    if (k->store == TIDE_KNOB_STORE_U64) {
        uint64_t v = *(const uint64_t *)field;
        snprintf(text, len, "%llu", (unsigned long long)v);
        return (double)v;
    }
    if (k->store == TIDE_KNOB_STORE_DOUBLE) {
        double v = *(const double *)field;
        snprintf(text, len, "%g", v);
        return v;
    }
    int v = *(const int *)field;
    snprintf(text, len, "%d", v);
    return v;
}

static void store_string(void *field, size_t size, const char *v)
{
    snprintf(field, size, "%s", v);
}

/* Parses v into field; false when it is not a value of the row (the caller writes the line). */
static bool parse_value(const tide_knob *k, void *field, const char *v)
{
    long l;
    double d;
    uint64_t b;
    int i;
    switch (k->kind) {
    case TIDE_KNOB_INT:
        if (!tide_knob_read_long(v, (long)k->min, (long)k->max, &l)) return false;
        store_long(k, field, l);
        return true;
    case TIDE_KNOB_DOUBLE:
        if (!read_double(v, &d) || !double_in_range(k, d)) return false;
        *(double *)field = d;
        return true;
    case TIDE_KNOB_BYTES:
        if (!tide_knob_read_bytes(v, &b)) return false;
        *(uint64_t *)field = b;
        return true;
    case TIDE_KNOB_CHOICE:
        if ((i = choice_index(k->choices, v)) < 0) return false;
        store_long(k, field, i);
        return true;
    case TIDE_KNOB_NAME:
        if (!k->known(v)) return false;
        store_string(field, k->size, v);
        return true;
    case TIDE_KNOB_PATH:
        if (!*v || strlen(v) >= k->size) return false;
        store_string(field, k->size, v);
        return true;
    case TIDE_KNOB_CUSTOM:
        return false; /* not reached: tide_knob_parse calls the row's setter */
    }
    return false;
}

int tide_knob_parse(const tide_knob *k, void *base, const char *value, char *err, size_t len)
{
    void *field = (char *)base + k->offset;
    if (k->kind == TIDE_KNOB_CUSTOM) return k->set(k, field, value, err, len);
    if (parse_value(k, field, value)) return TIDE_KNOB_OK;
    char allowed[256];
    tide_knob_allowed(k, allowed, sizeof allowed);
    return tide_knob_bad(k->name, value, allowed, err, len);
}

const tide_knob *tide_knob_find(const tide_knob_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].name, name) == 0) return &t->rows[i];
    return NULL;
}

int tide_knob_set(const tide_knob_place *places, size_t n, const char *name, const char *value,
                  const char *what, char *err, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const tide_knob *k = tide_knob_find(places[i].table, name);
        if (k) return tide_knob_parse(k, places[i].base, value, err, len);
    }
    for (size_t i = 0; i < n; i++) {
        const tide_knob_table *t = places[i].table;
        if (t->prefix && strncmp(name, t->prefix, strlen(t->prefix)) == 0) {
            what = t->what;
            break;
        }
    }
    /* The one place an unknown name is reported. */
    tide_knob_guess g = tide_knob_guess_name(places, n, name);
    if (err && len) snprintf(err, len, "%s is not %s", name, what);
    if (err && len && g.close) {
        size_t used = strlen(err);
        snprintf(err + used, len - used, "; did you mean %s?", g.nearest);
    }
    return TIDE_KNOB_ERR_CONFIG;
}

int tide_knob_check(const tide_knob *k, const void *base, char *err, size_t len)
{
    const void *field = (const char *)base + k->offset;
    char text[48];
    bool ok;
    if (k->kind == TIDE_KNOB_INT) {
        double v = load_number(k, field, text, sizeof text);
        ok = v == floor(v) && v >= k->min && v <= k->max;
    } else if (k->kind == TIDE_KNOB_CHOICE) {
        double v = load_number(k, field, text, sizeof text);
        ok = v == floor(v) && v >= 0 && v < (double)choice_count(k->choices);
    } else if (k->kind == TIDE_KNOB_DOUBLE) {
        double v = *(const double *)field;
        snprintf(text, sizeof text, "%g", v);
        ok = double_in_range(k, v);
    } else {
        return TIDE_KNOB_OK;
    }
    if (ok) return TIDE_KNOB_OK;
    char allowed[256];
    tide_knob_allowed(k, allowed, sizeof allowed);
    return tide_knob_bad(k->name, text, allowed, err, len);
}

int tide_knob_defaults(const tide_knob_table *t, void *base, char *err, size_t len)
{
    int rc = TIDE_KNOB_OK;
    for (size_t i = 0; i < t->n; i++) {
        const tide_knob *k = &t->rows[i];
        if (k->def && tide_knob_parse(k, base, k->def, rc ? NULL : err, len) != TIDE_KNOB_OK)
            rc = TIDE_KNOB_ERR_CONFIG;
    }
    return rc;
}

/* The field size each kind and store needs (0: any size of at least 2, a string). */
static size_t field_size(const tide_knob *k)
{
    switch (k->kind) {
    case TIDE_KNOB_INT:
    case TIDE_KNOB_CHOICE:
        return k->store == TIDE_KNOB_STORE_U64      ? sizeof(uint64_t)
               : k->store == TIDE_KNOB_STORE_DOUBLE ? sizeof(double)
                                                    : sizeof(int);
    case TIDE_KNOB_DOUBLE:
        return sizeof(double);
    case TIDE_KNOB_BYTES:
        return sizeof(uint64_t);
    default:
        return 0;
    }
}

/* Tide's knobs are TIDE_*; another program's table (TaskPack's TASKPACK_*) names its prefix. */
static bool has_table_prefix(const tide_knob_table *t, const char *name)
{
    if (strncmp(name, "TIDE_", 5) == 0) return true;
    return t->prefix && strncmp(name, t->prefix, strlen(t->prefix)) == 0;
}

static const char *row_problem(const tide_knob_table *t, const tide_knob *k)
{
    size_t need = field_size(k);
    if (!has_table_prefix(t, k->name))
        return "its name starts with neither TIDE_ nor the table's prefix";
    if (!k->help || !*k->help) return "it has no help line";
    if (need ? k->size != need : k->size < 2) return "its field has the wrong size";
    if (k->kind == TIDE_KNOB_CHOICE && (!k->choices || !k->choices[0])) return "no choices";
    if (k->kind == TIDE_KNOB_NAME && (!k->known || !k->names)) return "no registry to ask";
    if (k->kind == TIDE_KNOB_CUSTOM && (!k->set || !k->allowed)) return "no setter or no words";
    if ((k->kind == TIDE_KNOB_INT || k->kind == TIDE_KNOB_DOUBLE) && !(k->min <= k->max))
        return "its range is empty";
    return NULL;
}

int tide_knob_table_valid(const tide_knob_table *t, char *err, size_t len)
{
    union {
        long double align;
        char bytes[4096];
    } scratch;
    for (size_t i = 0; i < t->n; i++) {
        const tide_knob *k = &t->rows[i];
        const char *problem = row_problem(t, k);
        if (!problem && tide_knob_find(t, k->name) != k) problem = "it appears twice";
        if (!problem && k->size > sizeof scratch) problem = "its field is too large to check";
        if (!problem && k->def) {
            memset(&scratch, 0, sizeof scratch);
            tide_knob probe = *k;
            probe.offset = 0;
            if (tide_knob_parse(&probe, &scratch, k->def, NULL, 0) != TIDE_KNOB_OK)
                problem = "its default does not parse";
        }
        if (problem) {
            if (err && len) snprintf(err, len, "knob table %s: %s: %s", t->title, k->name, problem);
            return TIDE_KNOB_ERR_CONFIG;
        }
    }
    return TIDE_KNOB_OK;
}
