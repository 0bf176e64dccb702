/* Byte-parallel line detector. A row of up to 16 cells is held as two 64-bit words, one byte per
 * cell, so one AND of shifted rows tests all eight labels at every window start at once. Nothing
 * branches on the board's content: random positions are the normal input, and a branch per cell
 * or per label mispredicts often enough to cost more than the whole test.
 *
 * Three layouts of a row_t, picked by a `mode` that is a constant after inlining:
 *   NARROW  one board of width <= 8, all in `lo`;
 *   WIDE    one board of width 9..16, cells 0-7 in `lo` and 8-15 in `hi`;
 *   PAIR    two boards of width <= 8 side by side, the first in `lo`, the second in `hi`: the
 *           batch tests two boards for the price of one (the two words shift independently). */
#include "lines.h"

#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define MB_INLINE static inline __attribute__((always_inline))
#else
#define MB_INLINE static inline
#endif

#define LOW7 0x7F7F7F7F7F7F7F7FULL
#define HIGH 0x8080808080808080ULL

enum { NARROW, WIDE, PAIR };

/* One board row: cell x in bits 8x..8x+7 (see the modes above). */
typedef struct {
    uint64_t lo;
    uint64_t hi;
} row_t;

static const row_t EMPTY = {0, 0};

MB_INLINE row_t row_and(row_t a, row_t b) {
    row_t r = {a.lo & b.lo, a.hi & b.hi};
    return r;
}

MB_INLINE row_t row_or(row_t a, row_t b) {
    row_t r = {a.lo | b.lo, a.hi | b.hi};
    return r;
}

/* Cell x takes the value of cell x + n (n in 1..15, at most 7 unless WIDE). */
MB_INLINE row_t shr(row_t a, int n, int mode) {
    row_t r = EMPTY;
    if (mode == NARROW) {
        r.lo = a.lo >> (8 * n);
    } else if (mode == PAIR) {
        r.lo = a.lo >> (8 * n);
        r.hi = a.hi >> (8 * n);
    } else if (n < 8) {
        r.lo = (a.lo >> (8 * n)) | (a.hi << (64 - 8 * n));
        r.hi = a.hi >> (8 * n);
    } else {
        r.lo = a.hi >> (8 * (n - 8));
    }
    return r;
}

/* Cell x takes the value of cell x - n (same range of n). */
MB_INLINE row_t shl(row_t a, int n, int mode) {
    row_t r = EMPTY;
    if (mode == NARROW) {
        r.lo = a.lo << (8 * n);
    } else if (mode == PAIR) {
        r.lo = a.lo << (8 * n);
        r.hi = a.hi << (8 * n);
    } else if (n < 8) {
        r.lo = a.lo << (8 * n);
        r.hi = (a.hi << (8 * n)) | (a.lo >> (64 - 8 * n));
    } else {
        r.hi = a.lo << (8 * (n - 8));
    }
    return r;
}

/* n (1..8) bytes, little-endian. When `avail` readable bytes allow it, one whole-word read, whose
 * bytes past n the caller's keep mask clears. */
MB_INLINE uint64_t load(const uint8_t *p, int n, long avail) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (avail >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
#else
    (void)avail;
#endif
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

MB_INLINE void store(uint8_t *p, int n, uint64_t v) {
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* One row of a board of `width` cells at p (WIDE: two words; NARROW: one). */
MB_INLINE row_t load_row(const uint8_t *p, int width, long avail, int mode) {
    row_t r = EMPTY;
    if (mode == WIDE) {
        r.lo = load(p, 8, avail);
        r.hi = load(p + 8, width - 8, avail - 8);
    } else {
        r.lo = load(p, width, avail);
    }
    return r;
}

MB_INLINE void store_row(uint8_t *p, int width, row_t r, int mode) {
    if (mode == WIDE) {
        store(p, 8, r.lo);
        store(p + 8, width - 8, r.hi);
    } else {
        store(p, width, r.lo);
    }
}

/* The mask of labels present in any byte of v. */
MB_INLINE int fold(uint64_t v) {
    v |= v >> 32;
    v |= v >> 16;
    v |= v >> 8;
    return (int)(v & 0xFF);
}

/* 0xFF in each byte of v that is nonzero, 0x00 in the others. */
static uint64_t nonzero_bytes(uint64_t v) {
    uint64_t t = ((v & LOW7) + LOW7) | v;
    return ((t & HIGH) >> 7) * 0xFF;
}

/* 0xFF in the low n bytes (n may be out of 0..8). */
static uint64_t first_bytes(int n) {
    if (n >= 8) {
        return ~0ULL;
    }
    return n <= 0 ? 0 : (1ULL << (8 * n)) - 1;
}

/* A window of `run` cells from every start cell of a row at once: AND (or, for `cover`, OR into
 * the cells a window spans) by doubling the span, then one overlapping step to reach `run`. */
MB_INLINE row_t span_h(row_t s, int run, int cover, int mode) {
    int len = 1;
    while (2 * len <= run) {
        s = cover ? row_or(s, shl(s, len, mode)) : row_and(s, shr(s, len, mode));
        len *= 2;
    }
    if (len < run) {
        int n = run - len;
        s = cover ? row_or(s, shl(s, n, mode)) : row_and(s, shr(s, n, mode));
    }
    return s;
}

/* The whole test of one board (of two in PAIR mode, the second `size` bytes after the first: the
 * result then holds the second board's mask in bits 8-15); `end` bounds what may be read
 * (whole-word reads stay inside). `run` is passed apart from the shape so that the common runs
 * can be constants, which unrolls the loops over it. */
MB_INLINE int detect(const uint8_t *cells, const uint8_t *end, const mb_shape *shape,
                     uint8_t *marks, int mode, int run) {
    const int width = shape->width;
    const int height = shape->height;
    const long size = (long)width * height;
    row_t rows[MB_MAX_SIDE];
    row_t out[MB_MAX_SIDE];
    row_t any = EMPTY;

    for (int y = 0; y < height; y++) {
        const uint8_t *p = cells + (size_t)y * (size_t)width;
        row_t keep = {shape->keep[y][0], shape->keep[y][1]};
        rows[y] = row_and(load_row(p, width, end - p, mode), keep);
        if (mode == PAIR) {
            rows[y].hi = load(p + size, width, end - p - size) & keep.lo;
        }
        out[y] = EMPTY;
    }
    if (run <= width) {
        for (int y = 0; y < height; y++) {
            row_t s = span_h(rows[y], run, 0, mode);
            any = row_or(any, s);
            if (marks) {
                out[y] = row_or(out[y], span_h(s, run, 1, mode));
            }
        }
    }
    if (run <= height) {
        /* Windows that start in row y0 and span `run` rows: the column straight up, the diagonal
         * up and right, and the antidiagonal from the top row down and right. Row y0 + k moved k
         * cells left lines a diagonal window up with its start cell. */
        const int diagonals = run <= width;
        for (int y0 = 0; y0 + run <= height; y0++) {
            const int top = y0 + run - 1;
            row_t v = rows[y0];
            row_t d = EMPTY;
            row_t a = EMPTY;
            if (diagonals) {
                d = rows[y0];
                a = rows[top];
                for (int k = 1; k < run; k++) {
                    v = row_and(v, rows[y0 + k]);
                    d = row_and(d, shr(rows[y0 + k], k, mode));
                    a = row_and(a, shr(rows[top - k], k, mode));
                }
            } else {
                for (int k = 1; k < run; k++) {
                    v = row_and(v, rows[y0 + k]);
                }
            }
            any = row_or(any, row_or(v, row_or(d, a)));
            if (marks) {
                for (int k = 0; k < run; k++) {
                    out[y0 + k] = row_or(out[y0 + k], v);
                }
                if (diagonals) {
                    out[y0] = row_or(out[y0], d);
                    out[top] = row_or(out[top], a);
                    for (int k = 1; k < run; k++) {
                        out[y0 + k] = row_or(out[y0 + k], shl(d, k, mode));
                        out[top - k] = row_or(out[top - k], shl(a, k, mode));
                    }
                }
            }
        }
    }
    if (marks) {
        for (int y = 0; y < height; y++) {
            store_row(marks + (size_t)y * (size_t)width, width, out[y], mode);
        }
    }
    if (mode == PAIR) {
        return fold(any.lo) | fold(any.hi) << 8;
    }
    return fold(any.lo | any.hi);
}

int mb_shape_init(mb_shape *shape, const uint8_t *holes, int width, int height, int run) {
    memset(shape, 0, sizeof *shape);
    if (width < 1 || width > MB_MAX_SIDE || height < 1 || height > MB_MAX_SIDE || run < 1) {
        return MB_ERR_SHAPE;
    }
    const int wide = width > 8;
    for (int y = 0; y < height; y++) {
        uint64_t lo = first_bytes(width);
        uint64_t hi = first_bytes(width - 8);
        if (holes) {
            const uint8_t *p = holes + (size_t)y * (size_t)width;
            row_t h = wide ? load_row(p, width, 0, WIDE) : load_row(p, width, 0, NARROW);
            lo &= ~nonzero_bytes(h.lo);
            hi &= ~nonzero_bytes(h.hi);
        }
        shape->keep[y][0] = lo;
        shape->keep[y][1] = hi;
    }
    shape->width = width;
    shape->height = height;
    /* Past the longest side no window fits; the clamp keeps index sums far from overflow. */
    shape->run = run > MB_MAX_SIDE ? MB_MAX_SIDE + 1 : run;
    return 0;
}

int mb_winners(const uint8_t *cells, const mb_shape *shape) {
    const uint8_t *end = cells + (size_t)shape->width * (size_t)shape->height;
    if (shape->width > 8) {
        return detect(cells, end, shape, NULL, WIDE, shape->run);
    }
    return detect(cells, end, shape, NULL, NARROW, shape->run);
}

int mb_find(const uint8_t *cells, const mb_shape *shape, uint8_t *marks) {
    const uint8_t *end = cells + (size_t)shape->width * (size_t)shape->height;
    if (shape->width > 8) {
        return detect(cells, end, shape, marks, WIDE, shape->run);
    }
    return detect(cells, end, shape, marks, NARROW, shape->run);
}

/* Two narrow boards at once, with the usual runs as constants. */
static int detect_pair(const uint8_t *board, const uint8_t *end, const mb_shape *shape) {
    switch (shape->run) {
    case 3:
        return detect(board, end, shape, NULL, PAIR, 3);
    case 4:
        return detect(board, end, shape, NULL, PAIR, 4);
    case 5:
        return detect(board, end, shape, NULL, PAIR, 5);
    default:
        return detect(board, end, shape, NULL, PAIR, shape->run);
    }
}

int mb_winners_batch(const uint8_t *cells, int count, const mb_shape *shape, uint8_t *winners) {
    if (count < 0) {
        return MB_ERR_SHAPE;
    }
    const size_t size = (size_t)shape->width * (size_t)shape->height;
    const uint8_t *end = cells + size * (size_t)count;
    int any = 0;
    int i = 0;
    if (shape->width <= 8) {
        for (; i + 1 < count; i += 2) {
            int w = detect_pair(cells + size * (size_t)i, end, shape);
            winners[i] = (uint8_t)w;
            winners[i + 1] = (uint8_t)(w >> 8);
            any += ((w & 0xFF) != 0) + ((w >> 8) != 0);
        }
    }
    for (; i < count; i++) {
        winners[i] = (uint8_t)mb_winners(cells + size * (size_t)i, shape);
        any += (winners[i] != 0);
    }
    return any;
}
