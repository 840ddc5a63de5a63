/* tide_json.h - the one JSON string writer of Tide's documents (TIDE_STATS, tide-knobs --json,
 * tide-sim's statistics, cbench's results). Pure C, no state. */
#ifndef TIDE_JSON_H
#define TIDE_JSON_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s as a JSON string: between quotes, '"' and '\' escaped with a backslash, control
 * characters (below 0x20) as \u00xx, every other byte as it is (UTF-8 passes through unchanged;
 * the documents hold what the user wrote). NULL is written as "". */
void tide_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_JSON_H */
