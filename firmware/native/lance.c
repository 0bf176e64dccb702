/* Lance Assembly's compact bout engine: see lance.h. Every rule here mirrors py_lance.py line
 * for line; the order in which actions are listed is part of the contract (the same seed must
 * pick the same action in both). */
#include "lance.h"

#include <stdlib.h>

#define SIDE 6
#define LANCE 5
#define MIN_EMPTY_TO_PLACE 5
#define ALL ((UINT64_C(1) << ML_CELLS) - 1)
#define FIRST_COLUMN UINT64_C(0x41041041)
#define LAST_COLUMN UINT64_C(0x820820820)

static const int WAY_DX[4] = {1, -1, 0, 0};
static const int WAY_DY[4] = {0, 0, 1, -1};

/* Per line direction: its step in cells, and the cells a five-cell window may start from. */
static const int LINE_STEP[4] = {1, SIDE, SIDE + 1, SIDE - 1};
static const uint64_t LINE_STARTS[4] = {
    UINT64_C(0xc30c30c3), UINT64_C(0xfff), UINT64_C(0xc3), UINT64_C(0xc30)};

typedef struct {
    ml_key key;
    int times;
} seen_entry;

/* A position being played, with its repetition history. */
typedef struct {
    ml_position pos;
    seen_entry *seen;
    int seen_count;
    int result;
} bout;

static int popcount(uint64_t x) { return __builtin_popcountll(x); }

static uint64_t occupied(const ml_position *p) { return p->tiles[0] | p->tiles[1] | p->tiles[2]; }

static int has_lance(uint64_t tiles) {
    for (int d = 0; d < 4; d++) {
        uint64_t run = tiles & LINE_STARTS[d];
        for (int k = 1; k < LANCE; k++) run &= tiles >> (k * LINE_STEP[d]);
        if (run) return 1;
    }
    return 0;
}

static int slide_exists(uint64_t full) {
    uint64_t empty = ~full & ALL;
    uint64_t beside_empty = ((empty << 1) & ~FIRST_COLUMN) | ((empty >> 1) & ~LAST_COLUMN) |
                            (empty << SIDE) | (empty >> SIDE);
    return (full & beside_empty) != 0;
}

static int may_place_neutral(const ml_position *p, int empty_cells) {
    return p->to_move != p->starter && p->in_hand && empty_cells >= MIN_EMPTY_TO_PLACE;
}

int ml_legal(const ml_position *p, int *codes) {
    uint64_t full = occupied(p);
    int empty_cells = ML_CELLS - popcount(full);
    int n = 0;
    if (!p->placed && !p->slid && empty_cells >= MIN_EMPTY_TO_PLACE && p->supplies[p->to_move]) {
        for (int i = 0; i < ML_CELLS; i++)
            if (!(full >> i & 1)) codes[n++] = ML_PLACE + i;
    }
    if (p->bout_turn > 0 && !p->slid) {
        for (int way = 0; way < 4; way++) {
            int dx = WAY_DX[way], dy = WAY_DY[way];
            for (int rear = 0; rear < ML_CELLS; rear++) {
                if (!(full >> rear & 1)) continue;
                int ray[SIDE], reach = 0;
                for (int c = rear % SIDE, r = rear / SIDE; c >= 0 && c < SIDE && r >= 0 && r < SIDE;
                     c += dx, r += dy)
                    ray[reach++] = r * SIDE + c;
                /* The group runs from the rear to the last tile in a row: a shorter one has a
                 * tile right in front of it, so only the whole run can move. */
                int length = 1;
                while (length < reach && (full >> ray[length] & 1)) length++;
                int code = ML_SLIDE + ((rear * 4 + way) * 6 + length) * 6;
                for (int k = length; k < reach && !(full >> ray[k] & 1); k++) codes[n++] = ++code;
            }
        }
    }
    if (may_place_neutral(p, empty_cells)) {
        for (int i = 0; i < ML_CELLS; i++)
            if (!(full >> i & 1)) codes[n++] = ML_NEUTRAL + i;
    }
    if (p->placed || p->slid) codes[n++] = ML_END;
    return n;
}

static ml_key repetition_key(const ml_position *p) {
    /* py_lance: a | b << 36 | neutral << 72 | to_move << 108 | in_hand << 109 */
    ml_key key;
    key.lo = p->tiles[0] | p->tiles[1] << 36;
    key.hi = p->tiles[1] >> 28 | p->tiles[2] << 8 | (uint64_t)p->to_move << 44 |
             (uint64_t)(p->in_hand != 0) << 45;
    return key;
}

/* Counts one more time `key` was seen (at most two); returns how often it was seen before. */
static int count_seen(bout *b, ml_key key) {
    for (int i = 0; i < b->seen_count; i++) {
        seen_entry *e = &b->seen[i];
        if (e->key.lo == key.lo && e->key.hi == key.hi) {
            int before = e->times;
            if (before < 2) e->times++;
            return before;
        }
    }
    b->seen[b->seen_count].key = key;
    b->seen[b->seen_count].times = 1;
    b->seen_count++;
    return 0;
}

static void end_turn(bout *b) {
    ml_position *p = &b->pos;
    int mover = p->to_move;
    p->to_move = 1 - mover;
    p->bout_turn++;
    p->placed = p->slid = 0;
    int times = count_seen(b, repetition_key(p));
    if (has_lance(p->tiles[mover]))
        b->result = mover;
    else if (has_lance(p->tiles[1 - mover]))
        b->result = 1 - mover;
    else if (times >= 2 || p->bout_turn >= p->max_turns)
        b->result = ML_STALEMATE;
}

static int nothing_left(const ml_position *p) {
    if (!(p->placed || p->slid)) return 0;
    uint64_t full = occupied(p);
    if (may_place_neutral(p, ML_CELLS - popcount(full))) return 0;
    return p->slid || !slide_exists(full);
}

static uint64_t slid(uint64_t tiles, uint64_t group, int shift) {
    uint64_t moving = tiles & group;
    if (!moving) return tiles;
    uint64_t moved = shift > 0 ? moving << shift : moving >> -shift;
    return (tiles & ~group) | moved;
}

static void play(bout *b, int code) {
    ml_position *p = &b->pos;
    if (code == ML_END) {
        end_turn(b);
        return;
    }
    if (code < ML_NEUTRAL) {
        p->tiles[p->to_move] |= UINT64_C(1) << (code - ML_PLACE);
        p->supplies[p->to_move]--;
        p->placed = 1;
        b->seen_count = 0; /* one tile more than every position seen: none can recur */
    } else if (code < ML_END) {
        p->tiles[2] = UINT64_C(1) << (code - ML_NEUTRAL);
        p->in_hand = 0;
        b->seen_count = 0;
    } else {
        int rest = code - ML_SLIDE;
        int distance = rest % 6;
        rest /= 6;
        int length = rest % 6;
        rest /= 6;
        int way = rest % 4, rear = rest / 4;
        int step = WAY_DX[way] + SIDE * WAY_DY[way];
        uint64_t group = 0;
        for (int k = 0; k < length; k++) group |= UINT64_C(1) << (rear + k * step);
        for (int t = 0; t < 3; t++) p->tiles[t] = slid(p->tiles[t], group, distance * step);
        p->slid = 1;
    }
    if (p->bout_turn == 0 || nothing_left(p)) end_turn(b);
}

static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int ml_playout(const ml_position *pos, const ml_key *seen, int seen_count, uint64_t seed,
               int *trace, int trace_cap, int *steps) {
    bout b;
    b.pos = *pos;
    b.result = ML_ONGOING;
    b.seen_count = 0;
    int turns_left = pos->max_turns - pos->bout_turn;
    size_t room = (size_t)(seen_count > 0 ? seen_count : 0) + (turns_left > 0 ? turns_left : 0) + 1;
    b.seen = malloc(room * sizeof *b.seen);
    if (!b.seen) return ML_ERR_MEMORY;
    for (int i = 0; i < seen_count; i++) count_seen(&b, seen[i]);
    int codes[ML_MAX_ACTIONS];
    uint64_t state = seed;
    int played = 0;
    while (b.result == ML_ONGOING) {
        int n = ml_legal(&b.pos, codes);
        if (n == 0) { /* no reachable bout gets here: a tile can always slide somewhere */
            b.result = ML_ERR_POSITION;
            break;
        }
        int code = codes[next_random(&state) % (uint64_t)n];
        if (played < trace_cap) trace[played] = code;
        play(&b, code);
        played++;
    }
    free(b.seen);
    *steps = played;
    return b.result;
}
