/* What every rescheduling shares, central (lb.c) or a protocol (dlb.c): an object's state
 * packed for its journey and adopted on arrival, and the bookkeeping when a rescheduling ends. */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

/* A migrating object on the wire: this header, then its state padded to 8 bytes. */
typedef struct mig_hdr {
    int64_t id;
    uint64_t size;
    uint64_t fn_module, fn_offset;
} mig_hdr;

size_t tide_objmig_size(const tide_obj *o)
{
    return sizeof(mig_hdr) + TIDE_OBJ_PAD8(o->size);
}

size_t tide_objmig_pack(const tide_obj *o, unsigned char *dst)
{
    mig_hdr h = {o->id, o->size, o->fnid.module, o->fnid.offset};
    memcpy(dst, &h, sizeof h);
    if (o->size) memcpy(dst + sizeof h, o->state, o->size);
    return tide_objmig_size(o);
}

void tide_objmig_adopt(tide_objects_layer *L, const unsigned char *buf, size_t len,
                       const int32_t *new_owner)
{
    for (size_t off = 0; off < len;) {
        mig_hdr h;
        if (len - off < sizeof h) tide_fatal("objects: truncated migration record");
        memcpy(&h, buf + off, sizeof h);
        int64_t k = tide_objdir_find(L, h.id);
        if (k < 0 || (new_owner && new_owner[k] != L->rank) || (uint64_t)L->dir_size[k] != h.size ||
            h.size > len - off - sizeof h)
            tide_fatal("objects: migration record for object %lld does not match the mapping",
                       (long long)h.id);
        tide_obj *o = calloc(1, sizeof *o);
        TIDE_OBJ_NEED(o);
        o->id = h.id;
        o->size = h.size;
        o->state = malloc(h.size + 1);
        TIDE_OBJ_NEED(o->state);
        if (h.size) memcpy(o->state, buf + off + sizeof h, h.size);
        o->fnid = (tide_fnid){h.fn_module, h.fn_offset};
        tide_task_fn fn = tide_fnid_resolve(o->fnid);
        if (!fn)
            tide_fatal("objects: object %lld arrived with a function this process does not have",
                       (long long)h.id);
        o->fn = (tide_object_fn)(void (*)(void))fn;
        TIDE_OBJ_NEED(tide_obj_grow((void **)&L->loc, &L->loc_cap, L->nloc + 1, sizeof *L->loc));
        L->loc[L->nloc++] = o;
        off += sizeof h + TIDE_OBJ_PAD8(h.size);
    }
}

void tide_objlb_finish(tide_objects_layer *L, const tide_objects_lb_record *rec)
{
    TIDE_OBJ_NEED(tide_obj_grow((void **)&L->hist, &L->hist_cap, L->nhist + 1, sizeof *L->hist));
    L->hist[L->nhist++] = *rec;
    tide_objects_stats *st = &L->st;
    st->reschedules++;
    st->last = *rec;
    st->gather_s_total += rec->gather_s;
    st->decision_s_total += rec->decision_s;
    st->migrate_s_total += rec->migrate_s;
    st->moved_total += rec->moved;
    st->bytes_moved_total += rec->bytes_moved;
    for (int64_t i = 0; i < L->nloc; i++) {
        L->loc[i]->load_sum = 0;
        L->loc[i]->load_n = 0;
    }
    L->nedges = 0;
    L->window = 0;
}
