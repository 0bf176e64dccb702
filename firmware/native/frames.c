/* The piece bits of a position for magboard's grid-tile games: see frames.h. */
#include "frames.h"

void fr_pieces(const uint8_t *board, int cells, const uint64_t *table, int codes, int words,
               uint64_t *out) {
    for (int i = 0; i < cells; i++) {
        int code = board[i];
        if (code == 0 || code >= codes) {
            continue;
        }
        const uint64_t *bits = table + ((int64_t)i * codes + code) * words;
        for (int w = 0; w < words; w++) {
            out[w] |= bits[w];
        }
    }
}
