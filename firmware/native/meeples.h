/* Meeple Maneuver's look-ahead kernel for magboard: the twin of py_meeples.py. How many neutral
 * meeples one whole turn can capture from a position, and by how many turns.
 *
 * Boards are the rules' bytes: a code per lattice cell, row-major from a1 (0 empty, else
 * 1 + colour * 2 + type; colour 2 is neutral, type 0 kitten, 1 puppy). Tiles are their lower-left
 * cells as column, row pairs.
 */
#ifndef MAGBOARD_MEEPLES_H
#define MAGBOARD_MEEPLES_H

#include <stdint.h>

#define MM_MAX_SIDE 16
#define MM_MAX_TILES 8
#define MM_ERR_POSITION -1 /* a board or tile list out of these bounds */

/* The most neutral meeples one turn of `mover` captures (`kinds`: bit 0 a kitten to place, bit 1
 * a puppy), and in *count how many turns capture that many: a meeple placed on an empty cell of a
 * tile, then that tile's different ends after two actions (each step inside the area, over no
 * tile, all tiles touching, the second not undoing the first). Returns 0 with *count 0 when there
 * is no turn, MM_ERR_POSITION for sizes out of bounds. */
int mm_best_turn(const uint8_t *board, int width, int height, const int *tiles, int ntiles,
                 int mover, int kinds, int *count);

#endif
