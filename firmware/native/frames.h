/* The piece bits of a position for magboard's grid-tile games: the twin of py_frames.py.
 *
 * A board is the rules' bytes (a piece code per lattice cell, 0 for empty). The table holds, for
 * every cell and code, the sensor bits that piece trips there, as `words` 64-bit words (least
 * significant first), cell after cell, code after code. The referee draws every position its
 * search weighs; most cells are empty, and the rest is one OR per word.
 */
#ifndef MAGBOARD_FRAMES_H
#define MAGBOARD_FRAMES_H

#include <stdint.h>

/* ORs into out[0..words) the bits of every piece on `board` (`cells` bytes); a code of `codes` or
 * more is skipped (the table has no bits for it). */
void fr_pieces(const uint8_t *board, int cells, const uint64_t *table, int codes, int words,
               uint64_t *out);

#endif
