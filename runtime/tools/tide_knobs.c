/* tide-knobs: prints every knob Tide reads, from the tables its one parser reads them with
 * (tide_knob.h), so the listing cannot differ from what tide_init accepts.
 *   tide-knobs --markdown   the knob tables of docs/config.md (between its markers)
 *   tide-knobs --json       every knob's default as a user would write it (null: unset)
 *   tide-knobs --check      reads the TIDE_* environment as tide_init does (without the values
 *                           of tide_config_set and the checks that need the ranks) and prints
 *                           its error line (exit 2) or its warning line (exit 0) on stderr:
 *                           what libtide says of a value, for scripts and tide-sim's tests
 * Exit status: 0; 1 when a table is broken (a default that does not parse, a field of the wrong
 * size, a name in two tables); 2 on bad usage or, with --check, a bad knob. No MPI: the engine
 * core's tables (tide_core_config.h) alone. */
#include "tide_core_config.h"
#include "tide_knob.h"

#include <string.h>

extern char **environ;

/* A name in two tables would be parsed by the first only: the second row would be dead. */
static const char *duplicate(const tide_knob_table *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < t[i]->n; r++)
            for (size_t j = i + 1; j < n; j++)
                if (tide_knob_find(t[j], t[i]->rows[r].name)) return t[i]->rows[r].name;
    return NULL;
}

int main(int argc, char **argv)
{
    bool markdown = argc == 2 && strcmp(argv[1], "--markdown") == 0;
    bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
    bool check = argc == 2 && strcmp(argv[1], "--check") == 0;
    if (!markdown && !json && !check) {
        fprintf(stderr, "usage: tide-knobs --markdown | --json | --check\n");
        return 2;
    }
    static tide_config_knobs tables;
    tide_config_knobs_build(&tables);
    size_t n = TIDE_CONFIG_NTABLES;
    const tide_knob_table *const *t = tables.table;
    char err[512];
    for (size_t i = 0; i < n; i++)
        if (tide_knob_table_valid(t[i], err, sizeof err) != TIDE_KNOB_OK) {
            fprintf(stderr, "tide-knobs: %s\n", err);
            return 1;
        }
    const char *twice = duplicate(t, n);
    if (twice) {
        fprintf(stderr, "tide-knobs: %s is a row of two knob tables\n", twice);
        return 1;
    }
    if (check) {
        static tide_config cfg;
        char warn[512];
        tide_config_init(&tables, &cfg);
        int rc = tide_config_read_env(&tables, &cfg, environ, err, sizeof err, warn, sizeof warn);
        if (rc != TIDE_KNOB_OK || warn[0]) fprintf(stderr, "%s\n", rc != TIDE_KNOB_OK ? err : warn);
        return rc != TIDE_KNOB_OK ? 2 : 0;
    }
    if (markdown)
        tide_knob_markdown(stdout, t, n);
    else
        tide_knob_json_defaults(stdout, t, n);
    return 0;
}
