/* Loading a tool library (TIDE_TOOL): the paper's user-defined tool outside the main library.
 * The library exports tide_tool_register(tide_tool *), which fills in its hooks. */
#include "tide_predictor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int tool_error(char *err, size_t len, const char *path, const char *what)
{
    if (err && len) snprintf(err, len, "TIDE_TOOL='%s' is invalid: %s", path, what);
    return TIDE_PRED_ERR_TOOL;
}

static int check_ops(const tide_model_ops *ops)
{
    return ops->name && ops->name[0] && ops->create && ops->train && ops->predict && ops->destroy;
}

int tide_tool_load(const char *path, tide_tool *out, char *err, size_t errlen)
{
    if (!path || !out) return TIDE_PRED_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!path[0]) return tool_error(err, errlen, path, "expected the path of a shared library");
    /* RTLD_LOCAL: a tool's own symbols must not capture the application's. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return tool_error(err, errlen, path, dlerror());
    tide_tool_register_fn reg;
    /* POSIX's sanctioned way to turn dlsym's object pointer into a function pointer. */
    *(void **)&reg = dlsym(h, TIDE_TOOL_REGISTER_SYMBOL);
    if (!reg) {
        dlclose(h);
        return tool_error(err, errlen, path, "it does not export " TIDE_TOOL_REGISTER_SYMBOL);
    }
    out->api_version = TIDE_TOOL_API_VERSION;
    int rc = reg(out);
    const char *problem = NULL;
    char msg[96];
    if (rc != 0) {
        snprintf(msg, sizeof msg, TIDE_TOOL_REGISTER_SYMBOL " returned %d", rc);
        problem = msg;
    } else if (out->api_version != TIDE_TOOL_API_VERSION) {
        snprintf(msg, sizeof msg, "tool API version %d, this library speaks %d", out->api_version,
                 TIDE_TOOL_API_VERSION);
        problem = msg;
    } else if (out->model && !check_ops(out->model)) {
        problem = "its model lacks a name or one of create/train/predict/destroy";
    }
    if (problem) {
        memset(out, 0, sizeof *out);
        dlclose(h);
        return tool_error(err, errlen, path, problem);
    }
    out->dl_handle = h;
    return TIDE_PRED_OK;
}

void tide_tool_unload(tide_tool *tool)
{
    if (!tool) return;
    if (tool->dl_handle) dlclose(tool->dl_handle);
    memset(tool, 0, sizeof *tool);
}
