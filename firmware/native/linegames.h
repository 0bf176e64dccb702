/* Move generation, perft and a solver for the three line games (tic-tac-toe, Tic-Tac-Cap, Tic Tac
 * Doh!) on the compact positions of firmware/engine/linegames.py, which is this kernel's
 * pure-Python twin and documents the layout: LG_POSITION bytes, 25 cells row-major from a1 (the
 * 3x3 games use a1..c3 of the 5-wide layout), six supply counts, Tic-Tac-Cap's two own-turn
 * counters capped at 2 and its passes in a row, the mover, the status (0 on, 1 the mover lost,
 * 2 drawn). A move is size * 25 + cell, or LG_PASS.
 */
#ifndef MAGBOARD_LINEGAMES_H
#define MAGBOARD_LINEGAMES_H

#include <stdint.h>

#define LG_POSITION 36
#define LG_MAX_MOVES 80
#define LG_PASS (-1)
#define LG_TIC_TAC_TOE 0
#define LG_TIC_TAC_CAP 1
#define LG_TIC_TAC_DOH 2
#define LG_ERR_OVERFLOW (-1)
#define LG_ERR_MEMORY (-2)

/* The legal moves, in the referee's order, into `moves` (LG_MAX_MOVES room); returns how many
 * (0 once the game is over). */
int lg_moves(int kind, int cover_own, const uint8_t *position, int *moves);

/* The position after a move that lg_moves gave for `position`. */
void lg_play(int kind, const uint8_t *position, int move, uint8_t *after);

/* For the player to move: -1 lost, 0 drawn, 1 while the game goes on. */
int lg_result(int kind, int cover_own, const uint8_t *position);

/* Leaves of the turn tree `depth` turns deep into *count; returns 0, LG_ERR_OVERFLOW when the
 * count does not fit 64 bits, or LG_ERR_MEMORY. */
int lg_perft(int kind, int cover_own, const uint8_t *position, int depth, uint64_t *count);

/* A solver for one game and its options, keeping every value it searched for (the positions up to
 * the symmetries of the board, and for Tic-Tac-Cap up to swapping the players). */
typedef struct lg_solver lg_solver;

lg_solver *lg_solver_new(int kind, int cover_own);
void lg_solver_free(lg_solver *solver);

/* The value of `position` for the player to move: (result + 1) << 6 | plies, result -1 loss,
 * 0 draw, +1 win under perfect play, plies the turns to the end (the winner and a drawing mover
 * the fewest, the loser the most). Returns LG_ERR_MEMORY when out of memory. */
int lg_solve(lg_solver *solver, const uint8_t *position);

/* Positions the solver holds. */
int64_t lg_solver_size(const lg_solver *solver);

/* Every value the solver holds, as key << 8 | value words, into `out` (room for
 * lg_solver_size words); the order is the table's, unsorted. */
void lg_solver_dump(const lg_solver *solver, uint64_t *out);

/* Fills the solver with words from lg_solver_dump. Returns 0 or LG_ERR_MEMORY. */
int lg_solver_load(lg_solver *solver, const uint64_t *words, int64_t count);

/* The canonical key of a position the solver files its value under. */
uint64_t lg_solver_key(int kind, const uint8_t *position);

#endif
