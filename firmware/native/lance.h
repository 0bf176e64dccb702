/* Lance Assembly's compact bout engine for magboard: move generation and whole random playouts
 * of a bout, the twin of py_lance.py (same positions, same action codes in the same order, the
 * same splitmix64 generator), so both play the same bout, action for action, from one seed.
 *
 * Cells are row-major from a1: cell i is column i % 6, row i / 6, bit i of each mask.
 */
#ifndef MAGBOARD_LANCE_H
#define MAGBOARD_LANCE_H

#include <stdint.h>

#define ML_CELLS 36
#define ML_PLACE 0     /* + cell: one of the mover's tiles onto an empty cell */
#define ML_NEUTRAL 36  /* + cell: the neutral tile onto an empty cell */
#define ML_END 72      /* ends a turn that could go on */
#define ML_SLIDE 256   /* + ((rear * 4 + way) * 6 + length) * 6 + distance; ways > < ^ v */
#define ML_MAX_ACTIONS 1024 /* more than any position has: 73 + 36 * 4 * 5 */
#define ML_ONGOING (-2)
#define ML_STALEMATE (-1)
#define ML_ERR_MEMORY (-3)
#define ML_ERR_POSITION (-4) /* a position with no legal action, which no bout reaches */

/* What the repetition rule compares, in two words: the masks of seat A, seat B and the neutral
 * tile, the player to move and whether the neutral tile is in hand, packed as py_lance's
 * repetition_key (lo is its low 64 bits, hi the rest). */
typedef struct {
    uint64_t lo;
    uint64_t hi;
} ml_key;

/* A bout in progress. */
typedef struct {
    uint64_t tiles[3]; /* seat A, seat B, the neutral tile */
    int to_move;
    int starter;       /* the bout's starter; the other seat holds the neutral tile */
    int supplies[2];
    int in_hand;       /* the neutral tile is still in hand */
    int placed;
    int slid;
    int bout_turn;     /* turns completed in this bout */
    int max_turns;
} ml_position;

/* The legal action codes of `pos` (a bout in progress) into `codes` (room for ML_MAX_ACTIONS),
 * in the rules' order: own placements, slides, the neutral tile's placements, ending the turn.
 * Returns their number. */
int ml_legal(const ml_position *pos, int *codes);

/* Plays uniformly random legal actions (splitmix64's output modulo their number) from `pos` to
 * the end of the bout. `seen` holds the repetition keys of the positions turns have ended in
 * since the last tile was placed, each once per time it was seen (at most twice). The first
 * `trace_cap` codes played go to `trace` (which may be NULL when trace_cap is 0) and their total
 * number to `*steps`. Returns the winning seat, ML_STALEMATE, ML_ERR_MEMORY or ML_ERR_POSITION. */
int ml_playout(const ml_position *pos, const ml_key *seen, int seen_count, uint64_t seed,
               int *trace, int trace_cap, int *steps);

#endif
