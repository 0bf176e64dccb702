/* The three line games on compact positions (see linegames.h and firmware/engine/linegames.py,
 * the twin this must agree with move for move). */
#include "linegames.h"

#include <stdlib.h>
#include <string.h>

#define CELLS 25
#define SIDE 5
#define SUPPLY CELLS
#define OWN_TURNS (SUPPLY + 6)
#define PASSES (OWN_TURNS + 2)
#define MOVER (PASSES + 1)
#define STATUS (MOVER + 1)
#define ON 0
#define LOST 1
#define DRAWN 2
#define CENTRE 12

static const int SMALL_BOARD[9] = {0, 1, 2, 5, 6, 7, 10, 11, 12};

/* Tic Tac Doh! stacks by index (tictacdoh.STACKS): (), S, M, L, LM, MS, LMS, SM, ML, SML. */
static const uint8_t DOH_COUNTS[10] = {0, 1, 2, 4, 6, 3, 7, 2, 4, 4};
static const uint8_t DOH_ON_TOP[10][3] = {
    {1, 2, 3}, {0, 7, 0}, {5, 0, 8}, {0, 4, 0}, {6, 0, 0},
    {0, 0, 0}, {0, 0, 0}, {0, 0, 9}, {0, 0, 0}, {0, 0, 0},
};

/* Per cell, the other two cells of each line of three through it: on the 3x3 board and on the
 * 5x5 area. Built once by lines_init. */
static int lines3[CELLS][8][2], nlines3[CELLS];
static int lines5[CELLS][12][2], nlines5[CELLS];
static int lines_ready;

static void add_lines(int width, int (*lines)[12][2], int *count, int stride) {
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int row = 0; row < width; row++)
        for (int col = 0; col < width; col++)
            for (int d = 0; d < 4; d++) {
                int ids[3], ok = 1;
                for (int k = 0; k < 3; k++) {
                    int c = col + k * dirs[d][0], r = row + k * dirs[d][1];
                    if (c < 0 || c >= width || r < 0 || r >= width) ok = 0;
                    ids[k] = r * SIDE + c;
                }
                if (!ok) continue;
                for (int k = 0; k < 3; k++) {
                    int i = ids[k], n = count[i]++;
                    lines[i][n][0] = ids[k == 0 ? 1 : 0];
                    lines[i][n][1] = ids[k == 2 ? 1 : 2];
                }
            }
    (void)stride;
}

static void lines_init(void) {
    static int tmp3[CELLS][12][2];
    if (lines_ready) return;
    add_lines(3, tmp3, nlines3, 0);
    for (int i = 0; i < CELLS; i++)
        for (int n = 0; n < nlines3[i]; n++) {
            lines3[i][n][0] = tmp3[i][n][0];
            lines3[i][n][1] = tmp3[i][n][1];
        }
    add_lines(5, lines5, nlines5, 0);
    lines_ready = 1;
}

static inline int cap_owner(int code) { return code ? (code - 1) / 3 : -1; }

static int cap_moves(int cover_own, const uint8_t *p, int *moves) {
    int mover = p[MOVER], base = SUPPLY + 3 * mover, largest = p[OWN_TURNS + mover], n = 0;
    for (int size = 0; size <= largest; size++) {
        if (!p[base + size]) continue;
        for (int k = 0; k < 9; k++) {
            int i = SMALL_BOARD[k], top = p[i];
            if (!top || ((top - 1) % 3 < size && (cover_own || (top - 1) / 3 != mover)))
                moves[n++] = size * CELLS + i;
        }
    }
    if (!n) moves[n++] = LG_PASS;
    return n;
}

static int doh_moves(const uint8_t *p, int *moves) {
    uint8_t open[CELLS] = {0};
    int low_col = 0, high_col = 0, low_row = 0, high_row = 0, any = 0, n = 0;
    int min_c = SIDE, max_c = -1, min_r = SIDE, max_r = -1;
    for (int i = 0; i < CELLS; i++)
        if (p[i]) {
            int c = i % SIDE, r = i / SIDE;
            any = 1;
            if (c < min_c) min_c = c;
            if (c > max_c) max_c = c;
            if (r < min_r) min_r = r;
            if (r > max_r) max_r = r;
        }
    if (!any) {
        open[CENTRE] = 1;
    } else {
        low_col = max_c - 2, high_col = min_c + 2, low_row = max_r - 2, high_row = min_r + 2;
        for (int i = 0; i < CELLS; i++) {
            int c = i % SIDE, r = i / SIDE;
            if (p[i] || c < low_col || c > high_col || r < low_row || r > high_row) continue;
            for (int dr = -1; dr <= 1 && !open[i]; dr++)
                for (int dc = -1; dc <= 1; dc++) {
                    int cc = c + dc, rr = r + dr;
                    if ((dc || dr) && cc >= 0 && cc < SIDE && rr >= 0 && rr < SIDE &&
                        p[rr * SIDE + cc]) {
                        open[i] = 1;
                        break;
                    }
                }
        }
    }
    for (int size = 0; size < 3; size++) {
        if (!p[SUPPLY + size]) continue;
        for (int i = 0; i < CELLS; i++)
            if (p[i] ? DOH_ON_TOP[p[i]][size] : open[i]) moves[n++] = size * CELLS + i;
    }
    return n;
}

int lg_moves(int kind, int cover_own, const uint8_t *p, int *moves) {
    if (p[STATUS]) return 0;
    if (kind == LG_TIC_TAC_TOE) {
        int n = 0;
        for (int k = 0; k < 9; k++)
            if (!p[SMALL_BOARD[k]]) moves[n++] = SMALL_BOARD[k];
        return n;
    }
    if (kind == LG_TIC_TAC_CAP) return cap_moves(cover_own, p, moves);
    return doh_moves(p, moves);
}

void lg_play(int kind, const uint8_t *p, int move, uint8_t *a) {
    int mover = p[MOVER];
    lines_init();
    memcpy(a, p, LG_POSITION);
    a[MOVER] = (uint8_t)(1 - mover);
    if (kind == LG_TIC_TAC_TOE) {
        int mark = 1 << mover, full = 1;
        a[move] = (uint8_t)mark;
        for (int n = 0; n < nlines3[move]; n++)
            if (a[lines3[move][n][0]] == mark && a[lines3[move][n][1]] == mark) {
                a[STATUS] = LOST;
                return;
            }
        for (int k = 0; k < 9; k++)
            if (!a[SMALL_BOARD[k]]) full = 0;
        if (full) a[STATUS] = DRAWN;
        return;
    }
    if (kind == LG_TIC_TAC_CAP) {
        if (a[OWN_TURNS + mover] < 2) a[OWN_TURNS + mover]++;
        if (move == LG_PASS) {
            if (++a[PASSES] >= 2) a[STATUS] = DRAWN;
            return;
        }
        int size = move / CELLS, cell = move % CELLS;
        a[cell] = (uint8_t)(1 + 3 * mover + size);
        a[SUPPLY + 3 * mover + size]--;
        a[PASSES] = 0;
        for (int n = 0; n < nlines3[cell]; n++)
            if (cap_owner(a[lines3[cell][n][0]]) == mover &&
                cap_owner(a[lines3[cell][n][1]]) == mover) {
                a[STATUS] = LOST;
                return;
            }
        return;
    }
    int size = move / CELLS, cell = move % CELLS;
    a[cell] = DOH_ON_TOP[p[cell]][size];
    a[SUPPLY + size]--;
    int counts = DOH_COUNTS[a[cell]];
    for (int n = 0; n < nlines5[cell]; n++)
        if (counts & DOH_COUNTS[a[lines5[cell][n][0]]] & DOH_COUNTS[a[lines5[cell][n][1]]]) {
            a[STATUS] = LOST;
            return;
        }
    if (!a[SUPPLY] && !a[SUPPLY + 1] && !a[SUPPLY + 2]) a[STATUS] = DRAWN;
}

int lg_result(int kind, int cover_own, const uint8_t *p) {
    int moves[LG_MAX_MOVES];
    if (p[STATUS] == LOST) return -1;
    if (p[STATUS] == DRAWN) return 0;
    if (kind == LG_TIC_TAC_DOH && !lg_moves(kind, cover_own, p, moves)) return -1;
    return 1;
}

/* ---- perft: a bounded table of (position, depth) counts, replaced on collision ---- */

typedef struct {
    uint64_t k0, k1, count;
    int depth;
} perft_entry;

#define PERFT_BITS 18

typedef struct {
    int kind, cover_own, overflow;
    perft_entry *table;
} perft_run;

/* The whole position in 128 bits: 25 cells of 4 bits, then the other bytes (each below 8). */
static void pack_full(const uint8_t *p, uint64_t *k0, uint64_t *k1) {
    uint64_t a = 0, b = 0;
    for (int i = 0; i < 16; i++) a |= (uint64_t)p[i] << (4 * i);
    for (int i = 16; i < CELLS; i++) b |= (uint64_t)p[i] << (4 * (i - 16));
    for (int i = CELLS; i < LG_POSITION; i++) b |= (uint64_t)(p[i] & 7) << (36 + 3 * (i - CELLS));
    *k0 = a;
    *k1 = b;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static uint64_t perft_count(perft_run *run, const uint8_t *p, int depth) {
    int moves[LG_MAX_MOVES];
    int n = lg_moves(run->kind, run->cover_own, p, moves);
    if (depth == 1 || n == 0) return (uint64_t)n;
    uint64_t k0, k1, total = 0;
    perft_entry *slot = NULL;
    if (run->table && depth >= 3) {
        pack_full(p, &k0, &k1);
        slot = &run->table[mix(k0 ^ mix(k1 + (uint64_t)depth)) & ((1u << PERFT_BITS) - 1)];
        if (slot->depth == depth && slot->k0 == k0 && slot->k1 == k1) return slot->count;
    }
    uint8_t child[LG_POSITION];
    for (int m = 0; m < n; m++) {
        lg_play(run->kind, p, moves[m], child);
        uint64_t below = perft_count(run, child, depth - 1);
        if (total + below < total) run->overflow = 1;
        total += below;
    }
    if (slot) {
        slot->k0 = k0;
        slot->k1 = k1;
        slot->depth = depth;
        slot->count = total;
    }
    return total;
}

int lg_perft(int kind, int cover_own, const uint8_t *p, int depth, uint64_t *count) {
    perft_run run = {kind, cover_own, 0, NULL};
    lines_init();
    if (depth <= 0) {
        *count = 1;
        return 0;
    }
    if (depth >= 4) {
        run.table = calloc((size_t)1 << PERFT_BITS, sizeof(perft_entry));
        if (!run.table) return LG_ERR_MEMORY;
    }
    *count = perft_count(&run, p, depth);
    free(run.table);
    return run.overflow ? LG_ERR_OVERFLOW : 0;
}

/* ---- the solver: memoised negamax over canonical positions ---- */

/* The eight symmetries of a square, as maps of (col, row) on a side-`n` board. */
static void transform(int t, int n, int c, int r, int *oc, int *orow) {
    int m = n - 1, x = c, y = r, tmp;
    if (t & 4) {
        tmp = x;
        x = y;
        y = tmp;
    }
    if (t & 1) x = m - x;
    if (t & 2) y = m - y;
    *oc = x;
    *orow = y;
}

/* 56 bits: tic-tac-toe and Tic-Tac-Cap as the mover's view (owners swapped when B moves), the
 * least packing over the eight symmetries; Tic Tac Doh! with the pieces moved to the corner of
 * their box (only their arrangement matters: a box that holds the centre never leaves the area). */
uint64_t lg_solver_key(int kind, const uint8_t *p) {
    uint64_t best = UINT64_MAX;
    if (kind == LG_TIC_TAC_DOH) {
        int min_c = SIDE, min_r = SIDE;
        for (int i = 0; i < CELLS; i++)
            if (p[i]) {
                if (i % SIDE < min_c) min_c = i % SIDE;
                if (i / SIDE < min_r) min_r = i / SIDE;
            }
        for (int t = 0; t < 8; t++) {
            int cells[CELLS][3], n = 0, lo_c = 99, lo_r = 99;
            for (int i = 0; i < CELLS; i++)
                if (p[i]) {
                    int c, r;
                    transform(t, SIDE, i % SIDE, i / SIDE, &c, &r);
                    cells[n][0] = c;
                    cells[n][1] = r;
                    cells[n][2] = p[i];
                    if (c < lo_c) lo_c = c;
                    if (r < lo_r) lo_r = r;
                    n++;
                }
            uint64_t key = 0;
            for (int k = 0; k < n; k++) {
                int slot = (cells[k][1] - lo_r) * 3 + (cells[k][0] - lo_c);
                key |= (uint64_t)cells[k][2] << (4 * slot);
            }
            key |= (uint64_t)(p[SUPPLY] | p[SUPPLY + 1] << 3 | p[SUPPLY + 2] << 6) << 36;
            if (key < best) best = key;
        }
        (void)min_c;
        (void)min_r;
        return best;
    }
    int mover = p[MOVER];
    uint8_t cells[9];
    for (int k = 0; k < 9; k++) {
        int code = p[SMALL_BOARD[k]];
        if (mover && code) {
            if (kind == LG_TIC_TAC_TOE)
                code = 3 - code;
            else
                code = code > 3 ? code - 3 : code + 3;
        }
        cells[k] = (uint8_t)code;
    }
    uint64_t rest = 0;
    if (kind == LG_TIC_TAC_CAP) {
        int me = SUPPLY + 3 * mover, them = SUPPLY + 3 * (1 - mover);
        rest = (uint64_t)(p[me] | p[me + 1] << 3 | p[me + 2] << 6 | p[them] << 9 |
                          p[them + 1] << 12 | p[them + 2] << 15) |
               (uint64_t)(p[OWN_TURNS + mover] | p[OWN_TURNS + 1 - mover] << 2 |
                          (p[PASSES] & 3) << 4)
                   << 18;
    }
    for (int t = 0; t < 8; t++) {
        uint64_t key = 0;
        for (int k = 0; k < 9; k++) {
            int c, r;
            transform(t, 3, k % 3, k / 3, &c, &r);
            key |= (uint64_t)cells[k] << (3 * (r * 3 + c));
        }
        key |= rest << 27;
        if (key < best) best = key;
    }
    return best;
}

struct lg_solver {
    int kind, cover_own;
    uint64_t *slots; /* key << 8 | value, 0 for an empty slot (no value is 0: see pack_value) */
    uint64_t mask;
    int64_t used;
};

static int pack_value(int result, int plies) { return (result + 1) << 6 | plies; }

lg_solver *lg_solver_new(int kind, int cover_own) {
    lg_solver *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->cover_own = cover_own;
    s->mask = (1u << 12) - 1;
    s->slots = calloc(s->mask + 1, sizeof(uint64_t));
    if (!s->slots) {
        free(s);
        return NULL;
    }
    return s;
}

void lg_solver_free(lg_solver *s) {
    if (!s) return;
    free(s->slots);
    free(s);
}

int64_t lg_solver_size(const lg_solver *s) { return s->used; }

static uint64_t *find_slot(uint64_t *slots, uint64_t mask, uint64_t key) {
    uint64_t i = mix(key) & mask;
    while (slots[i] && slots[i] >> 8 != key) i = (i + 1) & mask;
    return &slots[i];
}

static int store(lg_solver *s, uint64_t key, int value) {
    if ((uint64_t)(s->used + 1) * 4 > (s->mask + 1) * 3) {
        uint64_t mask = s->mask * 2 + 1;
        uint64_t *slots = calloc(mask + 1, sizeof(uint64_t));
        if (!slots) return LG_ERR_MEMORY;
        for (uint64_t i = 0; i <= s->mask; i++)
            if (s->slots[i]) *find_slot(slots, mask, s->slots[i] >> 8) = s->slots[i];
        free(s->slots);
        s->slots = slots;
        s->mask = mask;
    }
    uint64_t *slot = find_slot(s->slots, s->mask, key);
    if (!*slot) s->used++;
    *slot = key << 8 | (uint64_t)value;
    return 0;
}

/* Better for the mover: a higher result; then among wins and draws fewer plies, among losses
 * more. */
static int better(int result, int plies, int best_result, int best_plies) {
    if (result != best_result) return result > best_result;
    return result < 0 ? plies > best_plies : plies < best_plies;
}

int lg_solve(lg_solver *s, const uint8_t *p) {
    int moves[LG_MAX_MOVES];
    lines_init();
    if (p[STATUS] == LOST) return pack_value(-1, 0);
    if (p[STATUS] == DRAWN) return pack_value(0, 0);
    int n = lg_moves(s->kind, s->cover_own, p, moves);
    if (!n) return pack_value(-1, 0);
    uint64_t key = lg_solver_key(s->kind, p);
    uint64_t found = *find_slot(s->slots, s->mask, key);
    if (found) return (int)(found & 0xFF);
    int best_result = -2, best_plies = 0;
    uint8_t child[LG_POSITION];
    /* A line made at once is the best there is; finding one costs a move each, so it is looked
     * for before any search, and not kept (it is found again as fast). */
    for (int m = 0; m < n; m++) {
        lg_play(s->kind, p, moves[m], child);
        if (child[STATUS] == LOST) return pack_value(1, 1);
    }
    for (int m = 0; m < n; m++) {
        lg_play(s->kind, p, moves[m], child);
        int value = lg_solve(s, child);
        if (value < 0) return value;
        int result = -((value >> 6) - 1), plies = (value & 63) + 1;
        if (better(result, plies, best_result, best_plies)) {
            best_result = result;
            best_plies = plies;
            /* Every win of the mover ends on one of their placements, an odd number of turns
             * away, and none is one turn away: a win in three cannot be bettered. */
            if (result > 0 && plies <= 3) break;
        }
    }
    int value = pack_value(best_result, best_plies);
    if (store(s, key, value)) return LG_ERR_MEMORY;
    return value;
}

void lg_solver_dump(const lg_solver *s, uint64_t *out) {
    int64_t n = 0;
    for (uint64_t i = 0; i <= s->mask; i++)
        if (s->slots[i]) out[n++] = s->slots[i];
}

int lg_solver_load(lg_solver *s, const uint64_t *words, int64_t count) {
    for (int64_t i = 0; i < count; i++)
        if (store(s, words[i] >> 8, (int)(words[i] & 0xFF))) return LG_ERR_MEMORY;
    return 0;
}
