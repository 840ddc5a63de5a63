/* Replay of a real run: the TIDE_STATS document (docs/stats.md) gives every rank's load L and
 * task count per phase; each of its tasks gets L / tasks seconds, so the simulation answers
 * "what would this strategy have done on that run". A small JSON reader, enough for that
 * document: every length and type is checked before it is trusted. */
#include "sim.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace
{

struct jv {
    enum kind { NUL, BOOL, NUM, STR, ARR, OBJ } k = NUL;
    double num = 0;
    std::string str;
    std::vector<jv> items;         /* ARR, and OBJ's values */
    std::vector<std::string> keys; /* OBJ */
    const jv *get(const char *key) const
    {
        for (size_t i = 0; k == OBJ && i < keys.size(); i++)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
};

struct reader {
    const char *p, *end;
    int depth = 0;
    bool failed = false;
};

void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

bool literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return false;
    r->p += n;
    return true;
}

bool parse_value(reader *r, jv *out);

bool parse_string(reader *r, std::string *out)
{
    if (r->p >= r->end || *r->p != '"') return false;
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        if (*r->p == '\\') r->p++; /* escapes kept as the escaped character: names only */
        if (r->p < r->end) out->push_back(*r->p++);
    }
    if (r->p >= r->end) return false;
    r->p++;
    return true;
}

bool parse_number(reader *r, jv *out)
{
    char buf[64];
    size_t n = 0;
    while (r->p + n < r->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", r->p[n]))
        n++;
    if (n == 0) return false;
    memcpy(buf, r->p, n);
    buf[n] = 0;
    char *e;
    errno = 0;
    out->num = strtod(buf, &e);
    if (errno || *e) return false;
    out->k = jv::NUM;
    r->p += n;
    return true;
}

bool parse_items(reader *r, jv *out, char close, bool object)
{
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == close) return r->p++, true;
    for (;;) {
        skip_ws(r);
        if (object) {
            std::string key;
            if (!parse_string(r, &key)) return false;
            skip_ws(r);
            if (r->p >= r->end || *r->p++ != ':') return false;
            out->keys.push_back(key);
        }
        out->items.emplace_back();
        if (!parse_value(r, &out->items.back())) return false;
        skip_ws(r);
        if (r->p >= r->end) return false;
        char c = *r->p++;
        if (c == close) return true;
        if (c != ',') return false;
    }
}

bool parse_value(reader *r, jv *out)
{
    skip_ws(r);
    if (r->p >= r->end || ++r->depth > 64) return false;
    bool ok;
    char c = *r->p;
    if (c == '{')
        out->k = jv::OBJ, ok = parse_items(r, out, '}', true);
    else if (c == '[')
        out->k = jv::ARR, ok = parse_items(r, out, ']', false);
    else if (c == '"')
        out->k = jv::STR, ok = parse_string(r, &out->str);
    else if (literal(r, "null"))
        out->k = jv::NUL, ok = true;
    else if (literal(r, "true"))
        out->k = jv::BOOL, out->num = 1, ok = true;
    else if (literal(r, "false"))
        out->k = jv::BOOL, ok = true;
    else
        ok = parse_number(r, out);
    r->depth--;
    return ok;
}

/* A per-rank array of numbers of the expected length. */
bool rank_array(const jv *a, int n)
{
    if (!a || a->k != jv::ARR || (int)a->items.size() != n) return false;
    for (const jv &x : a->items)
        if (x.k != jv::NUM || !(x.num >= 0) || !std::isfinite(x.num)) return false;
    return true;
}

int read_file(const char *path, std::string *text, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return snprintf(err, len, "tide-sim: --replay '%s': %s", path, strerror(errno)), -1;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        text->append(buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) return snprintf(err, len, "tide-sim: --replay '%s': read error", path), -1;
    return 0;
}

int take_phases(const jv &doc, sim_workload *w, const char *path, char *err, size_t len)
{
    const jv *cfg = doc.get("config"), *phases = doc.get("phases");
    const jv *ranks = cfg ? cfg->get("ranks") : nullptr;
    const jv *threads = cfg ? cfg->get("threads") : nullptr;
    if (!ranks || ranks->k != jv::NUM || ranks->num < 1 || !phases || phases->k != jv::ARR ||
        phases->items.empty())
        return snprintf(err, len, "tide-sim: --replay '%s': no config.ranks or phases[]", path), -1;
    w->ranks = (int)ranks->num;
    w->threads = threads && threads->k == jv::NUM ? (int)threads->num : 0;
    w->phases = (int)phases->items.size();
    for (int p = 0; p < w->phases; p++) {
        const jv &ph = phases->items[(size_t)p];
        const jv *L = ph.get("L"), *tasks = ph.get("tasks");
        if (!rank_array(L, w->ranks) || !rank_array(tasks, w->ranks))
            return snprintf(err, len,
                            "tide-sim: --replay '%s': phase %d lacks per-rank L or tasks "
                            "arrays of %d numbers",
                            path, p, w->ranks),
                   -1;
        std::vector<int> n((size_t)w->ranks);
        std::vector<double> d((size_t)w->ranks);
        for (int r = 0; r < w->ranks; r++) {
            n[(size_t)r] = (int)tasks->items[(size_t)r].num;
            double load = L->items[(size_t)r].num;
            d[(size_t)r] = n[(size_t)r] ? load / n[(size_t)r] : 0.0;
        }
        w->ntasks.push_back(n);
        w->dur.push_back(d);
    }
    return 0;
}

/* The optional "replay" object (docs/sim.md, "Replay"): what a TIDE_STATS document does not
 * record but libtide's feed saw, the features every task carried and the core frequency. */
int take_replay(const jv &doc, sim_workload *w, const char *path, char *err, size_t len)
{
    w->feature.clear();
    w->mhz = 0;
    const jv *rp = doc.get("replay");
    if (!rp) return 0;
    const jv *feat = rp->get("task_features"), *mhz = rp->get("mhz");
    bool ok = rp->k == jv::OBJ && (!feat || (feat->k == jv::ARR && feat->items.size() <= 8)) &&
              (!mhz || (mhz->k == jv::NUM && mhz->num >= 0 && std::isfinite(mhz->num)));
    for (size_t i = 0; ok && feat && i < feat->items.size(); i++) {
        ok = feat->items[i].k == jv::NUM && std::isfinite(feat->items[i].num);
        if (ok) w->feature.push_back(feat->items[i].num);
    }
    if (!ok)
        return snprintf(err, len,
                        "tide-sim: --replay '%s': replay.task_features must be up to 8 numbers "
                        "and replay.mhz a number >= 0",
                        path),
               -1;
    w->mhz = mhz ? mhz->num : 0;
    return 0;
}

} // namespace

int sim_replay_load(const char *path, sim_workload *w, char *err, size_t len)
{
    std::string text;
    if (read_file(path, &text, err, len)) return -1;
    reader r{text.data(), text.data() + text.size()};
    jv doc;
    if (!parse_value(&r, &doc) || doc.k != jv::OBJ)
        return snprintf(err, len, "tide-sim: --replay '%s' is not a JSON document", path), -1;
    if (take_phases(doc, w, path, err, len)) return -1;
    if (take_replay(doc, w, path, err, len)) return -1;
    w->name = std::string("replay ") + path;
    return 0;
}
