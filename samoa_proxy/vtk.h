/* Legacy-VTK output of the whole grid (ParaView, VisIt open it): an unstructured grid of
 * triangles with the depth, free surface, bed, owner rank, section and refinement level per
 * cell. */
#ifndef SAMOA_VTK_H
#define SAMOA_VTK_H

#include "grid.h"

#include <stddef.h>

/* Checks at start-up that files can be created in dir (--vtk). 0, or 2 with one line in err. */
int samoa_vtk_check_dir(const char *dir, char *err, size_t errlen);

/* h and b: per cell; rank and section: per cell owner. 0, or -1 (errno set) when the file
 * cannot be written completely. */
int samoa_vtk_write(const char *path, const samoa_grid *g, double t, const double *h,
                    const double *b, const int *rank, const int *section);

#endif
