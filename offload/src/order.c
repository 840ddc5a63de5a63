/* order.c - the rank orders a view carries (tide_lb_order): one sort of a status collective's
 * result per key, shared by every callback that plans from it. */
#include "tide_lb.h"
#include "tide_plan.h"

#include <stdlib.h>

void tide_lb_orders_forget(tide_lb_orders *o)
{
    for (int k = 0; k < TIDE_LB_KEYS; k++)
        o->made[k] = false;
}

void tide_lb_orders_free(tide_lb_orders *o)
{
    for (int k = 0; k < TIDE_LB_KEYS; k++)
        free(o->order[k]);
    free(o->value);
    *o = (tide_lb_orders){0};
}

static bool make_room(tide_lb_orders *o, int size)
{
    if (o->size == size) return true;
    tide_lb_orders_free(o);
    bool ok = (o->value = malloc((size_t)size * sizeof *o->value)) != NULL;
    for (int k = 0; k < TIDE_LB_KEYS; k++)
        ok = (o->order[k] = malloc((size_t)size * sizeof *o->order[k])) != NULL && ok;
    if (!ok) {
        tide_lb_orders_free(o);
        return false;
    }
    o->size = size;
    return true;
}

const int32_t *tide_lb_order(const tide_lb_view *v, tide_lb_key key)
{
    tide_lb_orders *o = v->orders;
    if (!o || !v->all || key < 0 || key >= TIDE_LB_KEYS || v->size < 1) return NULL;
    if (o->made[key] && o->size == v->size) return o->order[key];
    if (!make_room(o, v->size)) return NULL;
    for (int i = 0; i < v->size; i++)
        o->value[i] = tide_lb_key_value(&v->all[i], key);
    o->made[key] = tide_plan_order(v->size, o->value, o->order[key]) == TIDE_PLAN_OK;
    return o->made[key] ? o->order[key] : NULL;
}
