/* Configuration: libtide's side of the knob tables of the engine core (tide_core_config.h, shared
 * with tide-sim): the tables built once per process, the values given through tide_config_set()
 * before tide_init(), and tide_config_load, which applies them and then the environment. */
#include "internal.h"

#include "tide_knob.h"

#include <pthread.h>
#include <string.h>

extern char **environ;

_Static_assert(TIDE_KNOB_ERR_CONFIG == TIDE_ERR_CONFIG, "one error code for a bad knob");

static tide_config_knobs tables;

static void build_tables(void)
{
    tide_config_knobs_build(&tables);
}

static const tide_config_knobs *tables_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_tables);
    return &tables;
}

const struct tide_knob_table *const *tide_config_tables(size_t *n)
{
    *n = TIDE_CONFIG_NTABLES;
    return tables_ready()->table;
}

void tide_config_defaults(tide_config *c)
{
    tide_config_init(tables_ready(), c);
}

int tide_config_apply(tide_config *cfg, const char *name, const char *value, char *err, size_t len)
{
    if (!name || !value) {
        snprintf(err, len, "configuration name and value must not be NULL");
        return TIDE_ERR_INVALID;
    }
    return tide_config_parse(tables_ready(), cfg, name, value, err, len);
}

/* Values given through tide_config_set() before tide_init(), in the order given. */
#define API_MAX 64
static struct {
    char name[64];
    char value[1024];
} api_values[API_MAX];
static int api_count;

int tide_config_set(const char *name, const char *value)
{
    if (tide_rt_global) return tide_fail(TIDE_ERR_STATE, "tide_config_set after tide_init");
    tide_config scratch;
    tide_config_defaults(&scratch);
    char err[256];
    int rc = tide_config_apply(&scratch, name, value, err, sizeof err);
    if (rc != TIDE_OK) return tide_fail(rc, "%s", err);
    if (strlen(name) >= sizeof api_values[0].name || strlen(value) >= sizeof api_values[0].value)
        return tide_fail(TIDE_ERR_INVALID, "configuration name or value too long");
    int slot = api_count;
    for (int i = 0; i < api_count; i++)
        if (strcmp(api_values[i].name, name) == 0) slot = i;
    if (slot == API_MAX) return tide_fail(TIDE_ERR_NOMEM, "too many tide_config_set values");
    snprintf(api_values[slot].name, sizeof api_values[slot].name, "%s", name);
    snprintf(api_values[slot].value, sizeof api_values[slot].value, "%s", value);
    if (slot == api_count) api_count++;
    return TIDE_OK;
}

void tide_config_forget_api_values(void)
{
    api_count = 0;
}

int tide_config_load(tide_config *cfg, char *err, size_t len, char *warn, size_t wlen)
{
    tide_config_defaults(cfg);
    *warn = 0;
    for (int i = 0; i < api_count; i++) {
        int rc = tide_config_apply(cfg, api_values[i].name, api_values[i].value, err, len);
        if (rc != TIDE_OK) return rc;
    }
    return tide_config_read_env(tables_ready(), cfg, environ, err, len, warn, wlen);
}
