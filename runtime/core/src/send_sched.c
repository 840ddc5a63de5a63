/* The send scheduler's decisions (tide_core_send.h). */
#include "tide_core_send.h"

tide_send_pack tide_send_pack_begin(bool packed, uint64_t pack_max, uint64_t max_inflight,
                                    double header, double inflight)
{
    uint64_t cap = max_inflight / 8 < pack_max ? max_inflight / 8 : pack_max;
    tide_send_pack p = {
        packed ? TIDE_SEND_PACK_TASKS : 1, 0, (double)cap, header, inflight, max_inflight};
    return p;
}
