/* Meeple Maneuver's look-ahead kernel: see meeples.h and its twin py_meeples.py. */
#include "meeples.h"

#include <stdlib.h>
#include <string.h>

/* ^ v < > cw ccw: column step, row step, clockwise quarters; and the action undoing each. */
static const int STEP_X[6] = {0, 0, -1, 1, 0, 0};
static const int STEP_Y[6] = {1, -1, 0, 0, 0, 0};
static const int STEP_Q[6] = {0, 0, 0, 0, 1, 3};
static const int UNDOES[6] = {1, 0, 3, 2, 5, 4};

typedef struct {
    int x, y, quarters;
} tile_end;

static int may_lie(const int *tiles, int ntiles, int moving, int x, int y, int width,
                   int height) {
    int placed[2 * MM_MAX_TILES];
    int reached[MM_MAX_TILES] = {0};
    int pending[MM_MAX_TILES];
    int top = 0, found = 1;
    if (x < 0 || x > width - 2 || y < 0 || y > height - 2) return 0;
    for (int i = 0; i < ntiles; i++) {
        if (i != moving && abs(tiles[2 * i] - x) < 2 && abs(tiles[2 * i + 1] - y) < 2) return 0;
    }
    memcpy(placed, tiles, sizeof(int) * 2 * ntiles);
    placed[2 * moving] = x;
    placed[2 * moving + 1] = y;
    reached[0] = 1;
    pending[top++] = 0;
    while (top) {
        int p = pending[--top];
        for (int j = 0; j < ntiles; j++) {
            if (!reached[j] && abs(placed[2 * j] - placed[2 * p]) <= 2 &&
                abs(placed[2 * j + 1] - placed[2 * p + 1]) <= 2) {
                reached[j] = 1;
                pending[top++] = j;
                found++;
            }
        }
    }
    return found == ntiles;
}

/* The different ends of tile `moving` after two actions, in py_meeples' order. */
static int tile_ends(const int *tiles, int ntiles, int moving, int width, int height,
                     tile_end *ends) {
    int n = 0;
    int x = tiles[2 * moving], y = tiles[2 * moving + 1];
    int placed[2 * MM_MAX_TILES];
    for (int first = 0; first < 6; first++) {
        int mx = x + STEP_X[first], my = y + STEP_Y[first];
        if (first < 4 && !may_lie(tiles, ntiles, moving, mx, my, width, height)) continue;
        memcpy(placed, tiles, sizeof(int) * 2 * ntiles);
        placed[2 * moving] = mx;
        placed[2 * moving + 1] = my;
        for (int second = 0; second < 6; second++) {
            if (second == UNDOES[first]) continue;
            int ex = mx + STEP_X[second], ey = my + STEP_Y[second];
            int q = (STEP_Q[first] + STEP_Q[second]) % 4;
            if (second < 4 && !may_lie(placed, ntiles, moving, ex, ey, width, height)) continue;
            int seen = 0;
            for (int k = 0; k < n && !seen; k++) {
                seen = ends[k].x == ex && ends[k].y == ey && ends[k].quarters == q;
            }
            if (!seen) ends[n++] = (tile_end){ex, ey, q};
        }
    }
    return n;
}

static int neutral_captures(const uint8_t *board, int cells, int width, int mover) {
    int count = 0;
    for (int i = 0; i < cells; i++) {
        int piece = board[i];
        if (piece < 5) continue;
        int taker = 1 + mover * 2 + (1 - (piece - 1) % 2);
        int x = i % width;
        if (x > 0 && x < width - 1 && board[i - 1] == taker && board[i + 1] == taker) {
            count++;
        } else if (i >= width && i + width < cells && board[i - width] == taker &&
                   board[i + width] == taker) {
            count++;
        }
    }
    return count;
}

static void block(int x, int y, int width, int *cells) {
    int i = y * width + x;
    cells[0] = i;
    cells[1] = i + width;
    cells[2] = i + width + 1;
    cells[3] = i + 1;
}

int mm_best_turn(const uint8_t *board, int width, int height, const int *tiles, int ntiles,
                 int mover, int kinds, int *count) {
    uint8_t scratch[MM_MAX_SIDE * MM_MAX_SIDE];
    tile_end ends[36];
    int best = 0, cells[4], targets[4];
    int size = width * height;
    *count = 0;
    if (width < 2 || height < 2 || width > MM_MAX_SIDE || height > MM_MAX_SIDE || ntiles < 1 ||
        ntiles > MM_MAX_TILES) {
        return MM_ERR_POSITION;
    }
    memcpy(scratch, board, (size_t)size);
    for (int t = 0; t < ntiles; t++) {
        block(tiles[2 * t], tiles[2 * t + 1], width, cells);
        int nends = tile_ends(tiles, ntiles, t, width, height, ends);
        for (int corner = 0; corner < 4; corner++) {
            if (board[cells[corner]]) continue;
            for (int kind = 0; kind < 2; kind++) {
                if (!(kinds >> kind & 1)) continue;
                uint8_t pieces[4];
                for (int k = 0; k < 4; k++) pieces[k] = board[cells[k]];
                pieces[corner] = (uint8_t)(1 + mover * 2 + kind);
                for (int e = 0; e < nends; e++) {
                    for (int k = 0; k < 4; k++) scratch[cells[k]] = 0;
                    block(ends[e].x, ends[e].y, width, targets);
                    for (int k = 0; k < 4; k++) scratch[targets[(k + ends[e].quarters) % 4]] = pieces[k];
                    int taken = neutral_captures(scratch, size, width, mover);
                    if (taken > best) {
                        best = taken;
                        *count = 1;
                    } else if (taken == best) {
                        (*count)++;
                    }
                    for (int k = 0; k < 4; k++) scratch[targets[k]] = 0;
                    for (int k = 0; k < 4; k++) scratch[cells[k]] = board[cells[k]];
                }
            }
        }
    }
    return best;
}
