/* Line detector for magboard: which labels own `run` consecutive cells in a row, a column or a
 * diagonal of a board of at most 16x16 cells, some of which may be holes (cells that do not exist).
 *
 * A board is `width * height` bytes, row-major, row 0 at the bottom. Each byte is a mask of the
 * labels that cell counts as: bit p for player p in most games; several bits where a cell counts
 * as several things at once (a Tic Tac Doh! tree). A hole never belongs to a run.
 */
#ifndef MAGBOARD_LINES_H
#define MAGBOARD_LINES_H

#include <stdint.h>

#define MB_MAX_SIDE 16
#define MB_ERR_SHAPE (-1)

/* A shape prepared once and reused for every board of it, so that a call per move costs only the
 * test itself. Fill it with mb_shape_init; the fields are private to lines.c. */
typedef struct {
    int width;
    int height;
    int run;
    uint64_t keep[MB_MAX_SIDE][2];
} mb_shape;

/* Returns 0, or MB_ERR_SHAPE for a width or height outside 1..16 or a run below 1 (the shape is
 * then left empty: every board of it has no line). `holes` (nonzero byte = hole) may be NULL. */
int mb_shape_init(mb_shape *shape, const uint8_t *holes, int width, int height, int run);

/* The mask of labels that have a line on one board of `shape`. */
int mb_winners(const uint8_t *cells, const mb_shape *shape);

/* The same mask; `marks` receives, per cell, the mask of labels whose lines pass through it. */
int mb_find(const uint8_t *cells, const mb_shape *shape, uint8_t *marks);

/* The test for `count` boards stored one after another; writes each board's mask of labels with a
 * line into `winners[i]`. Returns the number of boards with any line, or MB_ERR_SHAPE for a
 * negative count. */
int mb_winners_batch(const uint8_t *cells, int count, const mb_shape *shape, uint8_t *winners);

#endif
