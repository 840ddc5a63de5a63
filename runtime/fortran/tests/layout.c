/* The C side of test_api's layout check: the size of each struct that module tide mirrors, and
 * the offset of its last member, as the C compiler lays them out. */
#include <stddef.h>
#include <tide.h>

#define LAYOUT(type, last)                                                                         \
    do {                                                                                           \
        *size = sizeof(type);                                                                      \
        *offset = offsetof(type, last);                                                            \
    } while (0)

/* which: 0 tide_arg, 1 tide_phase_stats, 2 tide_object_msg, 3 tide_object_info,
 * 4 tide_objects_lb_record, 5 tide_objects_stats. Returns 0, or -1 for an unknown which. */
int tide_ftest_layout(int which, size_t *size, size_t *offset)
{
    switch (which) {
    case 0:
        LAYOUT(tide_arg, mode);
        break;
    case 1:
        LAYOUT(tide_phase_stats, received_self);
        break;
    case 2:
        LAYOUT(tide_object_msg, size);
        break;
    case 3:
        LAYOUT(tide_object_info, rank);
        break;
    case 4:
        LAYOUT(tide_objects_lb_record, unplaced);
        break;
    case 5:
        LAYOUT(tide_objects_stats, load_self);
        break;
    default:
        return -1;
    }
    return 0;
}
