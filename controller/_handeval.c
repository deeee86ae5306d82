/*
 * controller._handeval: the compiled kernel of tablectl's poker hand evaluator.
 *
 * Pure computation, no I/O. Python's controller/hands.py is the public API and holds
 * an independent pure-Python reference of the same strength encoding; the tests hold
 * the two (and outside evaluators) against each other.
 *
 * Cards are the compact codes of controller/cards.py: card = rank * 4 + suit, rank 0
 * (deuce) to 12 (ace), suit 0..3.
 *
 * Method. A hand of 5 to 7 cards is one 64-bit mask, suit-major: bit 16 * suit + rank.
 * Its four 13-bit suit chunks give, bit-parallel and without any serial dependency,
 * the rank masks m1 (ranks held at least once), m2 (at least twice), m3 and m4. With at
 * most seven cards a flush rules out quads and full houses, so one flush test, then the
 * masks, name the category; the tie-break is read straight off the masks through small
 * tables (the highest n ranks of a mask).
 *
 * Strength encoding (shared with the Python reference, bit for bit):
 *     strength = level(category) << 26 | primary << 13 | secondary
 * where primary and secondary are 13-bit rank masks (for example quads: the quad
 * rank, then the kicker; two pair: both pair ranks, then the kicker; flush: the five
 * ranks). Within one category the masks have fixed bit counts, so comparing them as
 * integers compares the ranks from the highest down: a higher strength is a better
 * hand, equal strengths are a tie.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum {
    K_HIGH_CARD = 0,
    K_PAIR,
    K_TWO_PAIR,
    K_THREE_OF_A_KIND,
    K_STRAIGHT,
    K_FLUSH,
    K_FULL_HOUSE,
    K_FOUR_OF_A_KIND,
    K_STRAIGHT_FLUSH,
    K_ROYAL_FLUSH,
    N_KINDS
};

#define N_RANKINGS 2 /* 0: standard, 1: Triple Action (flush above quads, ace high only) */

/* level of each category in each ranking: the top bits of a strength */
static const uint32_t LEVEL[N_RANKINGS][N_KINDS] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
    {0, 1, 2, 3, 4, 7, 5, 6, 8, 9},
};

static int8_t STRAIGHT_HIGH[N_RANKINGS][1 << 13]; /* highest rank of the best straight, or -1 */
static uint8_t POPCOUNT13[1 << 13];
static uint16_t TOP2[1 << 13], TOP3[1 << 13], TOP5[1 << 13]; /* the highest n ranks of a mask */
/* the bit of each card number in a hand mask; 0 past 51, so a bad number shows as a lost card */
static uint64_t CARD_BIT[256];

static PyObject *InvalidHand;  /* controller.errors.InvalidHand */
static PyObject *UnknownName;  /* controller.errors.UnknownName */

static const char RANK_CHARS[] = "23456789TJQKA";
static const char SUIT_CHARS[] = "CDHS";

static uint16_t top_bits(uint32_t mask, int n)
{
    while (__builtin_popcount(mask) > n)
        mask &= mask - 1; /* drop the lowest rank */
    return (uint16_t)mask;
}

static void build_tables(void)
{
    for (unsigned card = 0; card < 52; card++)
        CARD_BIT[card] = 1ull << (16 * (card & 3u) + (card >> 2));
    for (uint32_t mask = 0; mask < (1u << 13); mask++) {
        POPCOUNT13[mask] = (uint8_t)__builtin_popcount(mask);
        TOP2[mask] = top_bits(mask, 2);
        TOP3[mask] = top_bits(mask, 3);
        TOP5[mask] = top_bits(mask, 5);
        for (int ranking = 0; ranking < N_RANKINGS; ranking++) {
            int8_t high = -1;
            for (int top = 12; top >= 4; top--) {
                uint32_t run = 0x1Fu << (top - 4);
                if ((mask & run) == run) {
                    high = (int8_t)top;
                    break;
                }
            }
            /* the wheel A-2-3-4-5, a five-high straight, exists only where the ace plays low */
            if (high < 0 && ranking == 0 && (mask & 0x100Fu) == 0x100Fu)
                high = 3;
            STRAIGHT_HIGH[ranking][mask] = high;
        }
    }
}

static inline uint32_t high_bit(uint32_t x)
{
    return x ? (1u << (31 - __builtin_clz(x))) : 0u;
}

static inline uint64_t card_bit(unsigned card)
{
    return CARD_BIT[card & 0xFFu];
}

static inline int hand_size(uint64_t hand)
{
    return __builtin_popcountll(hand);
}

/* The strength of a hand mask of 5 to 7 cards; *kind receives its category. */
static inline uint32_t classify(uint64_t hand, int ranking, int *kind)
{
    uint32_t s0 = hand & 0x1FFF, s1 = hand >> 16 & 0x1FFF;
    uint32_t s2 = hand >> 32 & 0x1FFF, s3 = hand >> 48 & 0x1FFF;
    uint32_t both01 = s0 & s1, both23 = s2 & s3, any01 = s0 | s1, any23 = s2 | s3;
    uint32_t m1 = any01 | any23;                       /* ranks held at least once */
    uint32_t m2 = both01 | both23 | (any01 & any23);   /* at least twice */
    uint32_t m3 = (both01 & any23) | (both23 & any01); /* at least three times */
    uint32_t m4 = both01 & both23;                     /* four of a kind */
    uint32_t flush = (__builtin_popcount(s0) >= 5 ? s0 : 0) | (__builtin_popcount(s1) >= 5 ? s1 : 0) |
                     (__builtin_popcount(s2) >= 5 ? s2 : 0) | (__builtin_popcount(s3) >= 5 ? s3 : 0);
    const int8_t *straight = STRAIGHT_HIGH[ranking];
    uint32_t primary, secondary = 0;
    int k;

    if (flush) {
        int high = straight[flush];
        if (high >= 0) {
            k = high == 12 ? K_ROYAL_FLUSH : K_STRAIGHT_FLUSH;
            primary = 1u << high;
        } else {
            k = K_FLUSH;
            primary = TOP5[flush];
        }
    } else if (m4) {
        primary = high_bit(m4);
        secondary = high_bit(m1 & ~primary);
        k = K_FOUR_OF_A_KIND;
    } else if (m3 && (m2 & ~high_bit(m3))) {
        primary = high_bit(m3);
        secondary = high_bit(m2 & ~primary);
        k = K_FULL_HOUSE;
    } else if (straight[m1] >= 0) {
        primary = 1u << straight[m1];
        k = K_STRAIGHT;
    } else if (m3) {
        primary = m3;
        secondary = TOP2[m1 & ~primary];
        k = K_THREE_OF_A_KIND;
    } else if (m2 & (m2 - 1)) {
        primary = TOP2[m2];
        secondary = high_bit(m1 & ~primary);
        k = K_TWO_PAIR;
    } else if (m2) {
        primary = m2;
        secondary = TOP3[m1 & ~primary];
        k = K_PAIR;
    } else {
        primary = TOP5[m1];
        k = K_HIGH_CARD;
    }
    *kind = k;
    return (LEVEL[ranking][k] << 26) | (primary << 13) | secondary;
}

static inline uint32_t classify_any(uint64_t hand, int *kind)
{
    return classify(hand, 0, kind);
}

static int check_ranking(long ranking)
{
    if (ranking < 0 || ranking >= N_RANKINGS) {
        PyErr_Format(UnknownName,
                     "unknown ranking %ld: expected 0 (standard) or 1 (Triple Action)", ranking);
        return -1;
    }
    return 0;
}

/* ---- strength(cards, ranking=0): one hand, the fast path for live play ---- */

static PyObject *py_strength(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "strength(cards, ranking=0) takes 1 or 2 arguments");
        return NULL;
    }
    long ranking = 0;
    if (nargs == 2) {
        ranking = PyLong_AsLong(args[1]);
        if (ranking == -1 && PyErr_Occurred())
            return NULL;
        if (check_ranking(ranking) < 0)
            return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "strength() expects a sequence of cards");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 5 || n > 7) {
        Py_DECREF(seq);
        PyErr_Format(InvalidHand, "a poker hand has 5 to 7 cards; got %zd", n);
        return NULL;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint64_t hand = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        long card = PyLong_AsLong(items[i]);
        if (card == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (card < 0 || card > 51) {
            Py_DECREF(seq);
            PyErr_Format(InvalidHand, "card number %ld is not a card: expected 0 (2C) to 51 (AS)",
                         card);
            return NULL;
        }
        uint64_t bit = card_bit((unsigned)card);
        if (hand & bit) {
            Py_DECREF(seq);
            PyErr_Format(InvalidHand, "card %c%c appears twice in one hand",
                         RANK_CHARS[card >> 2], SUIT_CHARS[card & 3]);
            return NULL;
        }
        hand |= bit;
    }
    Py_DECREF(seq);
    int kind;
    return PyLong_FromUnsignedLong(classify(hand, (int)ranking, &kind));
}

/* ---- best_five(cards, ranking): the strength and which five cards make it ---- */

static PyObject *py_best_five(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *value = py_strength(self, args, nargs); /* validates the hand */
    if (value == NULL)
        return NULL;
    uint32_t best = (uint32_t)PyLong_AsUnsignedLong(value);
    long ranking = nargs == 2 ? PyLong_AsLong(args[1]) : 0;
    PyObject *seq = PySequence_Fast(args[0], "best_five() expects a sequence of cards");
    if (seq == NULL) {
        Py_DECREF(value);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint64_t bits[7];
    unsigned number[7];
    for (Py_ssize_t i = 0; i < n; i++) {
        number[i] = (unsigned)PyLong_AsLong(items[i]);
        bits[i] = card_bit(number[i]);
    }
    Py_DECREF(seq);
    /* the first five-card subset, in index order, that reaches the hand's strength */
    int chosen[5] = {0, 1, 2, 3, 4};
    int found = n == 5;
    for (int a = 0; !found && a < n; a++)
        for (int b = a + 1; !found && b < n; b++)
            for (int c = b + 1; !found && c < n; c++)
                for (int d = c + 1; !found && d < n; d++)
                    for (int e = d + 1; !found && e < n; e++) {
                        int kind;
                        uint64_t hand = bits[a] | bits[b] | bits[c] | bits[d] | bits[e];
                        if (classify(hand, (int)ranking, &kind) == best) {
                            int pick[5] = {a, b, c, d, e};
                            memcpy(chosen, pick, sizeof pick);
                            found = 1;
                        }
                    }
    /* the five in the order a dealer lays them out: groups first (the larger, then the
       higher), then single cards high to low, suits high first; a wheel's ace plays low and
       goes last. The key of a card: how many of its rank are among the five, its number. */
    int kind;
    uint64_t five = bits[chosen[0]] | bits[chosen[1]] | bits[chosen[2]] | bits[chosen[3]] |
                    bits[chosen[4]];
    (void)classify(five, (int)ranking, &kind);
    unsigned key[5];
    int has_ace = 0, has_deuce = 0;
    for (int i = 0; i < 5; i++) {
        unsigned rank = number[chosen[i]] >> 2, same = 0;
        for (int j = 0; j < 5; j++)
            same += (number[chosen[j]] >> 2) == rank;
        key[i] = same << 8 | number[chosen[i]];
        has_ace |= rank == 12;
        has_deuce |= rank == 0;
    }
    if ((kind == K_STRAIGHT || kind == K_STRAIGHT_FLUSH) && has_ace && has_deuce)
        key[0] = key[1] = key[2] = key[3] = key[4] = 0; /* a wheel: by number, then the ace */
    int order[5] = {chosen[0], chosen[1], chosen[2], chosen[3], chosen[4]};
    for (int i = 1; i < 5; i++) /* insertion sort, keys falling; the cards come high first */
        for (int j = i; j > 0 && key[j] > key[j - 1]; j--) {
            unsigned k = key[j];
            key[j] = key[j - 1];
            key[j - 1] = k;
            int o = order[j];
            order[j] = order[j - 1];
            order[j - 1] = o;
        }
    if (key[0] == 0) { /* the wheel's ace, highest by number, plays low */
        int ace = order[0];
        memmove(order, order + 1, 4 * sizeof order[0]);
        order[4] = ace;
    }
    return Py_BuildValue("(N(iiiii))", value, order[0], order[1], order[2], order[3], order[4]);
}

/* ---- strength_batch(hands, out, ranking): many hands, for game math ---- */

/* Strengths of rows hands of width cards; returns the first bad row, or -1. */
static inline __attribute__((always_inline)) Py_ssize_t
batch_rows(const uint8_t *h, uint32_t *o, Py_ssize_t rows, const int width, int ranking)
{
    for (Py_ssize_t r = 0; r < rows; r++) {
        const uint8_t *row = h + r * width;
        uint64_t hand = 0;
        for (int i = 0; i < width; i++)
            hand |= card_bit(row[i]);
        if (hand_size(hand) != width) /* a repeated card, or a number that is not a card */
            return r;
        int kind;
        o[r] = classify(hand, ranking, &kind);
    }
    return -1;
}

static PyObject *py_strength_batch(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *hands_obj, *out_obj;
    long ranking;
    if (!PyArg_ParseTuple(args, "OOl", &hands_obj, &out_obj, &ranking))
        return NULL;
    if (check_ranking(ranking) < 0)
        return NULL;
    Py_buffer hands, out;
    if (PyObject_GetBuffer(hands_obj, &hands, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&hands);
        return NULL;
    }
    PyObject *result = NULL;
    if (hands.ndim != 2 || hands.itemsize != 1) {
        PyErr_Format(InvalidHand, "hands must be a 2-D array of uint8 card numbers; got %d-D with %zd-byte items",
                     hands.ndim, hands.itemsize);
        goto done;
    }
    Py_ssize_t rows = hands.shape[0], width = hands.shape[1];
    if (width < 5 || width > 7) {
        PyErr_Format(InvalidHand, "a poker hand has 5 to 7 cards; the array has %zd columns", width);
        goto done;
    }
    if (out.ndim != 1 || out.itemsize != 4 || out.shape[0] != rows) {
        PyErr_Format(PyExc_ValueError, "out must be a 1-D array of %zd uint32/int32 items", rows);
        goto done;
    }
    const uint8_t *h = (const uint8_t *)hands.buf;
    uint32_t *o = (uint32_t *)out.buf;
    Py_ssize_t bad_row;
    Py_BEGIN_ALLOW_THREADS
    switch (width) {
    case 5: bad_row = batch_rows(h, o, rows, 5, (int)ranking); break;
    case 6: bad_row = batch_rows(h, o, rows, 6, (int)ranking); break;
    default: bad_row = batch_rows(h, o, rows, 7, (int)ranking); break;
    }
    Py_END_ALLOW_THREADS
    int bad_reason = 0, bad_card = 0;
    if (bad_row >= 0) {
        /* a number past 51 or a repeated card: find which, outside the hot path */
        const uint8_t *row = h + bad_row * width;
        uint64_t seen = 0;
        for (Py_ssize_t i = 0; i < width; i++) {
            unsigned card = row[i];
            if (card > 51 || (seen & card_bit(card))) {
                bad_card = (int)card;
                bad_reason = card > 51 ? 1 : 2;
                break;
            }
            seen |= card_bit(card);
        }
    }
    if (bad_row >= 0) {
        if (bad_reason == 1)
            PyErr_Format(InvalidHand, "hand %zd holds card number %d: expected 0 (2C) to 51 (AS)",
                         bad_row, bad_card);
        else
            PyErr_Format(InvalidHand, "hand %zd holds card %c%c twice", bad_row,
                         RANK_CHARS[bad_card >> 2], SUIT_CHARS[bad_card & 3]);
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&hands);
    PyBuffer_Release(&out);
    return result;
}

/* A tuple of n Python ints from an array of counts; NULL with an exception on failure. */
static PyObject *counts_tuple(const uint64_t *counts, int n)
{
    PyObject *result = PyTuple_New(n);
    if (result == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(counts[i]);
        if (v == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, v);
    }
    return result;
}

/* ---- count_categories(deck, k, ranking, first): exhaustive enumeration ---- */

typedef struct {
    const uint8_t *deck;
    int n, k, ranking;
    uint64_t counts[N_KINDS];
} enum_t;

static void enumerate_from(enum_t *e, uint64_t hand, int start, int left)
{
    if (left == 1) {
        for (int i = start; i < e->n; i++) {
            int kind;
            (void)classify(hand | card_bit(e->deck[i]), e->ranking, &kind);
            e->counts[kind]++;
        }
        return;
    }
    for (int i = start; i <= e->n - left; i++)
        enumerate_from(e, hand | card_bit(e->deck[i]), i + 1, left - 1);
}

static PyObject *py_count_categories(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer deck;
    int k, first;
    long ranking;
    if (!PyArg_ParseTuple(args, "y*ili", &deck, &k, &ranking, &first))
        return NULL;
    PyObject *result = NULL;
    if (check_ranking(ranking) < 0)
        goto done;
    if (k < 5 || k > 7) {
        PyErr_Format(InvalidHand, "a poker hand has 5 to 7 cards; got %d", k);
        goto done;
    }
    enum_t e;
    memset(&e, 0, sizeof e);
    e.deck = (const uint8_t *)deck.buf;
    e.n = (int)deck.len;
    e.k = k;
    e.ranking = (int)ranking;
    uint64_t seen = 0;
    for (int i = 0; i < e.n; i++) {
        if (e.deck[i] > 51 || (seen & (1ull << e.deck[i]))) {
            PyErr_Format(InvalidHand, "deck position %d: card number %d is not a card or is repeated",
                         i, e.deck[i]);
            goto done;
        }
        seen |= 1ull << e.deck[i];
    }
    if (first < 0 || first > e.n - k) {
        PyErr_Format(PyExc_ValueError, "first must be 0 to %d for %d-card hands from %d cards; got %d",
                     e.n - k, k, e.n, first);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    enumerate_from(&e, card_bit(e.deck[first]), first + 1, k - 1);
    Py_END_ALLOW_THREADS
    result = counts_tuple(e.counts, N_KINDS);
done:
    PyBuffer_Release(&deck);
    return result;
}

/* ---- tally(player, dealer, board, board_total, deck, ranking, threshold, samples, seed) ----
 *
 * Every way (or `samples` random ways) to complete a partly dealt round: the dealer's
 * missing hole cards and the missing board cards drawn from the deck's unseen cards.
 * Counts land in 60 cells: dealer qualifies (strength >= threshold: 0 or 1) * 30 +
 * player vs dealer (0 lose, 1 tie, 2 win) * 10 + the player's category (kernel order).
 */

static inline uint64_t xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* a random integer in [0, n): the high 32 bits scaled by n, no division (bias below 2^-32) */
static inline int below(uint64_t *state, int n)
{
    return (int)(((xorshift(state) >> 32) * (uint64_t)(uint32_t)n) >> 32);
}

typedef struct {
    uint8_t unseen[52];
    int n_unseen, need_board, need_dealer, ranking;
    uint64_t player, dealer, board;
    uint32_t threshold;
    uint64_t cells[60];
} tally_t;

static inline void tally_one(tally_t *t, uint64_t board, uint64_t dealer_extra)
{
    int pk, dk;
    uint32_t ps = classify(t->player | board, t->ranking, &pk);
    uint32_t ds = classify(t->dealer | dealer_extra | board, t->ranking, &dk);
    int outcome = ps > ds ? 2 : (ps == ds ? 1 : 0);
    t->cells[(ds >= t->threshold) * 30 + outcome * 10 + pk]++;
}

static void tally_dealer(tally_t *t, uint64_t board, int start, int left, uint64_t extra)
{
    if (left == 0) {
        tally_one(t, board, extra);
        return;
    }
    for (int i = start; i < t->n_unseen; i++) {
        uint64_t bit = card_bit(t->unseen[i]);
        if (board & bit)
            continue;
        tally_dealer(t, board, i + 1, left - 1, extra | bit);
    }
}

static void tally_board(tally_t *t, int start, int left, uint64_t board)
{
    if (left == 0) {
        tally_dealer(t, board, 0, t->need_dealer, 0);
        return;
    }
    for (int i = start; i <= t->n_unseen - left; i++)
        tally_board(t, i + 1, left - 1, board | card_bit(t->unseen[i]));
}

/* `samples` random completions: the missing board and dealer cards drawn from t->unseen.
 * A partial Fisher-Yates shuffle draws a uniform random selection from any arrangement of
 * the pool, so the pool is not reset between samples. */
static void tally_sample(tally_t *t, long long samples, uint64_t *state)
{
    uint8_t pool[52];
    memcpy(pool, t->unseen, (size_t)t->n_unseen);
    int draw = t->need_board + t->need_dealer;
    for (long long s = 0; s < samples; s++) {
        uint64_t b = 0, d = 0;
        for (int k = 0; k < draw; k++) {
            int j = k + below(state, t->n_unseen - k);
            uint8_t tmp = pool[k];
            pool[k] = pool[j];
            pool[j] = tmp;
            if (k < t->need_board)
                b |= card_bit(pool[k]);
            else
                d |= card_bit(pool[k]);
        }
        tally_one(t, b, d);
    }
}

static int read_cards(Py_buffer *buf, uint64_t *mask, uint64_t *seen, const char *what)
{
    const uint8_t *cards = (const uint8_t *)buf->buf;
    for (Py_ssize_t i = 0; i < buf->len; i++) {
        if (cards[i] > 51 || (*seen & card_bit(cards[i]))) {
            PyErr_Format(InvalidHand, "%s card number %d is not a card or appears twice", what,
                         cards[i]);
            return -1;
        }
        *seen |= card_bit(cards[i]);
        *mask |= card_bit(cards[i]);
    }
    return 0;
}

static PyObject *py_tally(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer player, dealer, board, deck;
    int board_total;
    long ranking;
    unsigned long threshold;
    long long samples;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "y*y*y*iy*lkLK", &player, &dealer, &board, &board_total, &deck,
                          &ranking, &threshold, &samples, &seed))
        return NULL;
    PyObject *result = NULL;
    tally_t t;
    memset(&t, 0, sizeof t);
    uint64_t seen = 0, in_deck = 0;
    if (check_ranking(ranking) < 0)
        goto done;
    t.ranking = (int)ranking;
    t.threshold = (uint32_t)threshold;
    if (read_cards(&player, &t.player, &seen, "player") < 0 ||
        read_cards(&dealer, &t.dealer, &seen, "dealer") < 0 ||
        read_cards(&board, &t.board, &seen, "board") < 0)
        goto done;
    {
        uint64_t ignored = 0;
        if (read_cards(&deck, &in_deck, &ignored, "deck") < 0)
            goto done;
    }
    if ((seen & ~in_deck) != 0) {
        PyErr_SetString(InvalidHand, "a known card is not in the deck");
        goto done;
    }
    t.need_board = board_total - (int)board.len;
    t.need_dealer = 2 - (int)dealer.len;
    if (player.len != 2 || t.need_board < 0 || t.need_dealer < 0 || board_total + 2 < 5 ||
        board_total + 2 > 7) {
        PyErr_Format(InvalidHand,
                     "tally needs 2 player cards, at most 2 dealer cards and at most %d board "
                     "cards of a %d-card board; got %zd, %zd and %zd",
                     board_total, board_total, player.len, dealer.len, board.len);
        goto done;
    }
    for (Py_ssize_t i = 0; i < deck.len; i++) {
        uint8_t c = ((const uint8_t *)deck.buf)[i];
        if (!(seen & card_bit(c)))
            t.unseen[t.n_unseen++] = c;
    }
    if (t.need_board + t.need_dealer > t.n_unseen) {
        PyErr_SetString(InvalidHand, "not enough unseen cards to complete the round");
        goto done;
    }
    t.player |= t.board;
    t.dealer |= t.board;
    Py_BEGIN_ALLOW_THREADS
    if (samples <= 0) {
        tally_board(&t, 0, t.need_board, 0);
    } else {
        uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
        tally_sample(&t, samples, &state);
    }
    Py_END_ALLOW_THREADS
    result = counts_tuple(t.cells, 60);
done:
    PyBuffer_Release(&player);
    PyBuffer_Release(&dealer);
    PyBuffer_Release(&board);
    PyBuffer_Release(&deck);
    return result;
}

/* ---- dealer_cells(player, board, dealer_known, deck, ranking, threshold) ----
 *
 * With the board complete, every hand the dealer may hold (his missing hole cards from
 * the unseen cards) falls into one of six cells: qualifies (0/1) * 3 + (lose, tie, win).
 * Returns six (count, first card, second card) triples: each cell's size and the first
 * dealer hand found in it (-1, -1 for an empty cell), so a caller can settle one
 * representative hand per cell through the real rules.
 */
static PyObject *py_dealer_cells(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer player, board, dealer, deck;
    long ranking;
    unsigned long threshold;
    if (!PyArg_ParseTuple(args, "y*y*y*y*lk", &player, &board, &dealer, &deck, &ranking, &threshold))
        return NULL;
    PyObject *result = NULL;
    uint64_t seen = 0, p = 0, b = 0, d = 0, in_deck = 0, ignored = 0;
    if (check_ranking(ranking) < 0 || read_cards(&player, &p, &seen, "player") < 0 ||
        read_cards(&board, &b, &seen, "board") < 0 || read_cards(&dealer, &d, &seen, "dealer") < 0 ||
        read_cards(&deck, &in_deck, &ignored, "deck") < 0)
        goto done;
    int hole = 2 - (int)dealer.len;
    if (player.len + board.len < 5 || player.len + board.len > 7 || hole < 1 || hole > 2 ||
        (seen & ~in_deck)) {
        PyErr_SetString(InvalidHand, "dealer_cells needs a full player hand, a complete board and "
                                     "at most one known dealer card, all from the deck");
        goto done;
    }
    uint8_t unseen[52];
    int n = 0;
    for (Py_ssize_t i = 0; i < deck.len; i++) {
        uint8_t c = ((const uint8_t *)deck.buf)[i];
        if (!(seen & card_bit(c)))
            unseen[n++] = c;
    }
    uint64_t counts[6] = {0};
    int first[6][2];
    for (int i = 0; i < 6; i++)
        first[i][0] = first[i][1] = -1;
    int kind;
    uint32_t mine = classify(p | b, (int)ranking, &kind);
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < n; i++) {
        /* two hidden cards: every pair i < j; one hidden card: j == i, the card alone */
        for (int j = hole == 2 ? i + 1 : i; j < (hole == 2 ? n : i + 1); j++) {
            uint64_t extra = card_bit(unseen[i]) | card_bit(unseen[j]);
            uint32_t theirs = classify(d | b | extra, (int)ranking, &kind);
            int cell = (theirs >= threshold) * 3 + (mine > theirs ? 2 : (mine == theirs ? 1 : 0));
            if (counts[cell]++ == 0) {
                first[cell][0] = unseen[i];
                first[cell][1] = hole == 2 ? unseen[j] : -1;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("((Kii)(Kii)(Kii)(Kii)(Kii)(Kii))",
                           counts[0], first[0][0], first[0][1], counts[1], first[1][0], first[1][1],
                           counts[2], first[2][0], first[2][1], counts[3], first[3][0], first[3][1],
                           counts[4], first[4][0], first[4][1], counts[5], first[5][0], first[5][1]);
done:
    PyBuffer_Release(&player);
    PyBuffer_Release(&board);
    PyBuffer_Release(&dealer);
    PyBuffer_Release(&deck);
    return result;
}

/* ======================================================================================
 * Game simulation for the return-to-player figures of the strategy-dependent main games.
 *
 * One round: the player's decisions by the game's strategy (the same rules as
 * controller/games/strategy.py), then the main game's net per ante averaged exactly over
 * every hand the dealer may hold. The tests hold each round's value to the Python
 * settlement code and the Ultimate decisions to the Python strategy.
 * ====================================================================================== */

enum { SIM_BONUS_POKER = 0, SIM_ULTIMATE = 1, SIM_CALL = 2 };

typedef struct {
    int game;             /* SIM_* */
    int rule;             /* Bonus Poker: 0 bet when P(win) > P(lose); 1 when P(win) > 50% */
    uint32_t threshold;   /* dealer qualification (0: none) */
    uint32_t ante_from;   /* Bonus Poker: the ante pays from this strength */
    uint32_t two_pair;    /* Ultimate: the strength of the lowest two pair */
    double plus_odds[10]; /* Ultimate: Ante Plus odds by player category; < 0: returned */
    double cell_net[60];  /* call games: net per ante after calling, by tally cell */
    double call;          /* call games: the call, in antes */
} sim_t;

#define FIRST_LOOK 400
#define CLOSE_LOOK 2500

/* sampled completions of a round seen from the player: hole cards and the visible board */
static void sim_tally(tally_t *t, const sim_t *s, uint64_t player, uint64_t board, int need_board,
                      const uint8_t *deck, int n, long long samples, uint64_t *state)
{
    memset(t, 0, sizeof *t);
    t->ranking = 0;
    t->threshold = s->threshold;
    t->player = player | board;
    t->dealer = board;
    t->need_board = need_board;
    t->need_dealer = 2;
    for (int i = 0; i < n; i++)
        if (!((player | board) & card_bit(deck[i])))
            t->unseen[t->n_unseen++] = deck[i];
    tally_sample(t, samples, state);
}

static double tally_p(const tally_t *t, int outcome)
{
    uint64_t n = 0, total = 0;
    for (int i = 0; i < 60; i++) {
        total += t->cells[i];
        if ((i % 30) / 10 == outcome)
            n += t->cells[i];
    }
    return (double)n / (double)total;
}

static double tally_ev(const tally_t *t, const double *net)
{
    double sum = 0;
    uint64_t total = 0;
    for (int i = 0; i < 60; i++) {
        sum += (double)t->cells[i] * net[i];
        total += t->cells[i];
    }
    return sum / (double)total;
}

/* decide value > threshold: a first look, then a closer one when the first is near */
static int sim_decide(const sim_t *s, uint64_t player, uint64_t board, int need_board,
                      const uint8_t *deck, int n, uint64_t *state, int kind, double threshold,
                      double margin)
{
    tally_t t;
    sim_tally(&t, s, player, board, need_board, deck, n, FIRST_LOOK, state);
    double v = kind == 0 ? tally_p(&t, 2) - tally_p(&t, 0) : kind == 1 ? tally_p(&t, 2)
                                                                       : tally_ev(&t, s->cell_net);
    if (v - threshold > margin || threshold - v > margin)
        return v > threshold;
    sim_tally(&t, s, player, board, need_board, deck, n, CLOSE_LOOK, state);
    v = kind == 0 ? tally_p(&t, 2) - tally_p(&t, 0) : kind == 1 ? tally_p(&t, 2)
                                                              : tally_ev(&t, s->cell_net);
    return v > threshold;
}

/* Ultimate's "hidden pair or better": a pair or better whose made cards include a hole card,
 * the best five chosen as controller.hands.evaluate chooses it */
static int hidden_pair_or_better(const uint8_t *hole, const uint8_t *board5)
{
    uint8_t c[7] = {hole[0], hole[1], board5[0], board5[1], board5[2], board5[3], board5[4]};
    for (int i = 1; i < 7; i++) /* sort by card number, highest first */
        for (int j = i; j > 0 && c[j] > c[j - 1]; j--) {
            uint8_t tmp = c[j];
            c[j] = c[j - 1];
            c[j - 1] = tmp;
        }
    uint64_t all = 0;
    for (int i = 0; i < 7; i++)
        all |= card_bit(c[i]);
    int kind;
    uint32_t best = classify(all, 0, &kind);
    if (kind == K_HIGH_CARD)
        return 0;
    for (int a = 0; a < 7; a++)
        for (int b = a + 1; b < 7; b++)
            for (int d = b + 1; d < 7; d++)
                for (int e = d + 1; e < 7; e++)
                    for (int f = e + 1; f < 7; f++) {
                        uint8_t five[5] = {c[a], c[b], c[d], c[e], c[f]};
                        uint64_t m = 0;
                        for (int k = 0; k < 5; k++)
                            m |= card_bit(five[k]);
                        int k5;
                        if (classify(m, 0, &k5) != best)
                            continue;
                        int whole = kind == K_STRAIGHT || kind == K_FLUSH ||
                                    kind == K_STRAIGHT_FLUSH || kind == K_ROYAL_FLUSH;
                        for (int k = 0; k < 5; k++) {
                            int same = 0;
                            for (int l = 0; l < 5; l++)
                                same += (five[l] >> 2) == (five[k] >> 2);
                            if ((whole || same >= 2) && (five[k] == hole[0] || five[k] == hole[1]))
                                return 1;
                        }
                        return 0;
                    }
    return 0;
}

static int ultimate_preflop(const uint8_t *hole)
{
    int hi = hole[0] >> 2, lo = hole[1] >> 2, suited = (hole[0] & 3) == (hole[1] & 3);
    if (lo > hi) {
        int tmp = hi;
        hi = lo;
        lo = tmp;
    }
    if (hi == lo)
        return hi >= 1; /* threes or better */
    if (hi == 12)
        return 1;
    if (hi == 11) /* king: K2s+, K5o+ */
        return lo >= (suited ? 0 : 3);
    if (hi == 10) /* queen: Q6s+, Q8o+ */
        return lo >= (suited ? 4 : 6);
    if (hi == 9) /* jack: J8s+, JTo+ */
        return lo >= (suited ? 6 : 8);
    return 0;
}

static int ultimate_flop(const sim_t *s, const uint8_t *hole, const uint8_t *board)
{
    uint64_t m = card_bit(hole[0]) | card_bit(hole[1]);
    uint32_t board_ranks = 0;
    for (int i = 0; i < 3; i++) {
        m |= card_bit(board[i]);
        board_ranks |= 1u << (board[i] >> 2);
    }
    int kind;
    uint32_t value = classify_any(m, &kind);
    if (value >= s->two_pair)
        return 1;
    int r0 = hole[0] >> 2, r1 = hole[1] >> 2;
    if (kind == K_PAIR && !(r0 == 0 && r1 == 0) &&
        (r0 == r1 || (board_ranks >> r0 & 1) || (board_ranks >> r1 & 1)))
        return 1;
    for (int suit = 0; suit < 4; suit++) {
        int count = 0, hidden_ten = 0;
        for (int i = 0; i < 2; i++)
            if ((hole[i] & 3) == suit) {
                count++;
                hidden_ten |= (hole[i] >> 2) >= 8;
            }
        for (int i = 0; i < 3; i++)
            count += (board[i] & 3) == suit;
        if (count >= 4 && hidden_ten)
            return 1;
    }
    return 0;
}

static int ultimate_river(const uint8_t *hole, const uint8_t *board, const uint8_t *deck, int n)
{
    if (hidden_pair_or_better(hole, board))
        return 1;
    uint64_t b = 0;
    for (int i = 0; i < 5; i++)
        b |= card_bit(board[i]);
    int kind;
    uint32_t mine = classify(b | card_bit(hole[0]) | card_bit(hole[1]), 0, &kind);
    int outs = 0;
    for (int i = 0; i < n; i++) {
        uint64_t bit = card_bit(deck[i]);
        if ((b | card_bit(hole[0]) | card_bit(hole[1])) & bit)
            continue;
        outs += classify_any(b | bit, &kind) > mine;
    }
    return outs < 21;
}

/* The main game's net per ante averaged over every dealer hand, and the chance it is positive.
 * bets: Bonus Poker {flop, turn, river}; Ultimate {call}; call games {call}. */
static void settle_over_dealers(const sim_t *s, const uint8_t *hole, const uint8_t *board,
                                const uint8_t *deck, int n, const double *bets, double *net,
                                double *win_chance)
{
    uint64_t b = 0;
    for (int i = 0; i < 5; i++)
        b |= card_bit(board[i]);
    uint64_t mine_mask = b | card_bit(hole[0]) | card_bit(hole[1]);
    int pk, dk;
    uint32_t mine = classify(mine_mask, 0, &pk);
    uint8_t unseen[52];
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!(mine_mask & card_bit(deck[i])))
            unseen[u++] = deck[i];
    uint64_t cells[6] = {0};
    for (int i = 0; i < u; i++)
        for (int j = i + 1; j < u; j++) {
            uint32_t theirs = classify(b | card_bit(unseen[i]) | card_bit(unseen[j]), 0, &dk);
            cells[(theirs >= s->threshold) * 3 + (mine > theirs ? 2 : mine == theirs ? 1 : 0)]++;
        }
    double sum = 0, positive = 0;
    uint64_t total = 0;
    for (int c = 0; c < 6; c++) {
        if (!cells[c])
            continue;
        int q = c / 3, outcome = c % 3;
        double v = 0;
        if (s->game == SIM_BONUS_POKER) {
            double raised = bets[0] + bets[1] + bets[2];
            v = outcome == 2 ? raised + (mine >= s->ante_from ? 1.0 : 0.0)
                : outcome == 1 ? 0.0 : -1.0 - raised;
        } else if (s->game == SIM_ULTIMATE) {
            double plus = s->plus_odds[pk] < 0 ? 0.0 : s->plus_odds[pk];
            v = outcome == 2 ? (q ? 1.0 : 0.0) + bets[0] + plus
                : outcome == 1 ? 0.0 : -(q ? 1.0 : 0.0) - bets[0] - 1.0;
        } else {
            v = s->cell_net[q * 30 + outcome * 10 + pk];
        }
        sum += (double)cells[c] * v;
        positive += v > 0 ? (double)cells[c] : 0.0;
        total += cells[c];
    }
    *net = sum / (double)total;
    *win_chance = positive / (double)total;
}

/* One round from nine dealt cards: player 0 and 2, dealer 1 and 3 (unused), board 4..8.
 * Returns the decisions as a code: Bonus Poker bit 0 folded, bit 1 turn bet, bit 2 river bet;
 * Ultimate 0 fold, 1-4 the call multiple; call games 0 fold, 1 call. */
static int sim_round(const sim_t *s, const uint8_t *c9, const uint8_t *deck, int n,
                     uint64_t *state, double *net, double *win_chance)
{
    uint8_t hole[2] = {c9[0], c9[2]};
    const uint8_t *board = c9 + 4;
    uint64_t player = card_bit(hole[0]) | card_bit(hole[1]);
    uint64_t flop = card_bit(board[0]) | card_bit(board[1]) | card_bit(board[2]);
    double bets[3] = {0, 0, 0};
    if (s->game == SIM_BONUS_POKER) {
        int hi = hole[0] >> 2, lo = hole[1] >> 2;
        if (lo > hi) {
            int tmp = hi;
            hi = lo;
            lo = tmp;
        }
        int offsuit = (hole[0] & 3) != (hole[1] & 3);
        int worst = lo == 0 && hi >= 1 && hi <= 5; /* 2-3 … 2-7 */
        if (offsuit && (worst || (lo == 1 && hi == 2))) {
            *net = -1.0;
            *win_chance = 0.0;
            return 1;
        }
        bets[0] = 2.0;
        int kind = s->rule == 1 ? 1 : 0;
        double threshold = s->rule == 1 ? 0.5 : 0.0;
        bets[1] = sim_decide(s, player, flop, 2, deck, n, state, kind, threshold, 0.15);
        bets[2] = sim_decide(s, player, flop | card_bit(board[3]), 1, deck, n, state, kind,
                             threshold, 0.15);
        settle_over_dealers(s, hole, board, deck, n, bets, net, win_chance);
        return ((int)bets[1] << 1) | ((int)bets[2] << 2);
    }
    if (s->game == SIM_ULTIMATE) {
        if (ultimate_preflop(hole))
            bets[0] = 4;
        else if (ultimate_flop(s, hole, board))
            bets[0] = 2;
        else if (ultimate_river(hole, board, deck, n))
            bets[0] = 1;
        else {
            *net = -2.0;
            *win_chance = 0.0;
            return 0;
        }
        settle_over_dealers(s, hole, board, deck, n, bets, net, win_chance);
        return (int)bets[0];
    }
    if (!sim_decide(s, player, flop, 2, deck, n, state, 2, -1.0, 0.45)) {
        *net = -1.0;
        *win_chance = 0.0;
        return 0;
    }
    settle_over_dealers(s, hole, board, deck, n, bets, net, win_chance);
    return 1;
}

/* the nine parameters shared by simulate() and play_round() */
static int read_sim(PyObject *args, sim_t *s, Py_buffer *deck)
{
    Py_buffer plus, cells;
    unsigned long threshold, ante_from, two_pair;
    memset(s, 0, sizeof *s);
    if (!PyArg_ParseTuple(args, "iikkky*y*dy*", &s->game, &s->rule, &threshold, &ante_from,
                          &two_pair, &plus, &cells, &s->call, deck))
        return -1;
    s->threshold = (uint32_t)threshold;
    s->ante_from = (uint32_t)ante_from;
    s->two_pair = (uint32_t)two_pair;
    int ok = plus.len == (Py_ssize_t)sizeof s->plus_odds && cells.len == (Py_ssize_t)sizeof s->cell_net &&
             s->game >= SIM_BONUS_POKER && s->game <= SIM_CALL && deck->len == 52;
    if (ok) {
        memcpy(s->plus_odds, plus.buf, sizeof s->plus_odds);
        memcpy(s->cell_net, cells.buf, sizeof s->cell_net);
    }
    PyBuffer_Release(&plus);
    PyBuffer_Release(&cells);
    if (!ok) {
        PyBuffer_Release(deck);
        PyErr_SetString(PyExc_ValueError, "simulation parameters of the wrong size or game code");
        return -1;
    }
    return 0;
}

/* simulate(game, rule, threshold, ante_from, two_pair, plus_odds, cell_net, call, deck, hands, seed)
 *   -> (hands, sum of nets, sum of squared nets, sum of win chances) */
static PyObject *py_simulate(PyObject *self, PyObject *args)
{
    (void)self;
    sim_t s;
    Py_buffer deck;
    /* the last arguments ride in a tuple, so both entry points share one parser */
    if (PyTuple_GET_SIZE(args) != 10) {
        PyErr_SetString(PyExc_TypeError, "simulate takes 10 arguments");
        return NULL;
    }
    PyObject *head = PyTuple_GetSlice(args, 0, 9);
    if (head == NULL)
        return NULL;
    int rc = read_sim(head, &s, &deck);
    Py_DECREF(head);
    if (rc < 0)
        return NULL;
    long long hands;
    unsigned long long seed;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(args, 9), "LK", &hands, &seed)) {
        PyBuffer_Release(&deck);
        return NULL;
    }
    uint8_t cards[52];
    memcpy(cards, deck.buf, 52);
    PyBuffer_Release(&deck);
    double sum = 0, squares = 0, wins = 0;
    uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
    Py_BEGIN_ALLOW_THREADS
    uint8_t pool[52];
    memcpy(pool, cards, 52);
    for (long long h = 0; h < hands; h++) {
        for (int k = 0; k < 9; k++) { /* partial Fisher-Yates: nine cards dealt */
            int j = k + below(&state, 52 - k);
            uint8_t tmp = pool[k];
            pool[k] = pool[j];
            pool[j] = tmp;
        }
        double net, chance;
        sim_round(&s, pool, cards, 52, &state, &net, &chance);
        sum += net;
        squares += net * net;
        wins += chance;
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(Lddd)", hands, sum, squares, wins);
}

/* play_round(game, rule, threshold, ante_from, two_pair, plus_odds, cell_net, call, deck, nine, seed)
 *   -> (decision code, net, win chance): one round from nine given cards, for the tests */
static PyObject *py_play_round(PyObject *self, PyObject *args)
{
    (void)self;
    if (PyTuple_GET_SIZE(args) != 10) {
        PyErr_SetString(PyExc_TypeError, "play_round takes 10 arguments");
        return NULL;
    }
    sim_t s;
    Py_buffer deck, nine;
    PyObject *head = PyTuple_GetSlice(args, 0, 9);
    if (head == NULL)
        return NULL;
    int rc = read_sim(head, &s, &deck);
    Py_DECREF(head);
    if (rc < 0)
        return NULL;
    unsigned long long seed;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(args, 9), "y*K", &nine, &seed)) {
        PyBuffer_Release(&deck);
        return NULL;
    }
    PyObject *result = NULL;
    if (nine.len != 9) {
        PyErr_SetString(InvalidHand, "play_round needs nine dealt cards");
    } else {
        uint64_t state = seed ? seed : 1;
        double net, chance;
        int code = sim_round(&s, (const uint8_t *)nine.buf, (const uint8_t *)deck.buf, 52, &state,
                             &net, &chance);
        result = Py_BuildValue("(idd)", code, net, chance);
    }
    PyBuffer_Release(&nine);
    PyBuffer_Release(&deck);
    return result;
}

static PyMethodDef methods[] = {
    {"strength", (PyCFunction)(void (*)(void))py_strength, METH_FASTCALL,
     "strength(cards, ranking=0) -> int: the strength of one hand of 5 to 7 card numbers."},
    {"best_five", (PyCFunction)(void (*)(void))py_best_five, METH_FASTCALL,
     "best_five(cards, ranking=0) -> (strength, (i, j, k, l, m)): the hand's strength and the "
     "indices of the first five cards, in the order given, that make it."},
    {"strength_batch", py_strength_batch, METH_VARARGS,
     "strength_batch(hands, out, ranking): strengths of an (N, 5..7) uint8 array into out (N uint32)."},
    {"count_categories", py_count_categories, METH_VARARGS,
     "count_categories(deck, k, ranking, first) -> tuple: category counts of every k-card hand "
     "from the deck (bytes of card numbers) whose lowest deck position is first."},
    {"dealer_cells", py_dealer_cells, METH_VARARGS,
     "dealer_cells(player, board, dealer_known, deck, ranking, threshold) -> six (count, card, "
     "card) triples: every dealer hand by qualifies * 3 + (lose, tie, win), with a representative."},
    {"simulate", py_simulate, METH_VARARGS,
     "simulate(game, rule, threshold, ante_from, two_pair, plus_odds, cell_net, call, deck, "
     "(hands, seed)) -> (hands, sum, sum of squares, sum of win chances)"},
    {"play_round", py_play_round, METH_VARARGS,
     "play_round(game, rule, threshold, ante_from, two_pair, plus_odds, cell_net, call, deck, "
     "(nine, seed)) -> (decision code, net, win chance)"},
    {"tally", py_tally, METH_VARARGS,
     "tally(player, dealer, board, board_total, deck, ranking, threshold, samples, seed) -> "
     "60 counts: every (samples <= 0) or `samples` random completions of a partly dealt round, "
     "by dealer qualification * 30 + (lose, tie, win) * 10 + player category."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "controller._handeval",
    "Compiled kernel of the poker hand evaluator (see controller.hands).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__handeval(void)
{
    build_tables();
    PyObject *errors = PyImport_ImportModule("controller.errors");
    if (errors == NULL)
        return NULL;
    InvalidHand = PyObject_GetAttrString(errors, "InvalidHand");
    UnknownName = PyObject_GetAttrString(errors, "UnknownName");
    Py_DECREF(errors);
    if (InvalidHand == NULL || UnknownName == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "STRENGTH_CATEGORY_SHIFT", 26) < 0 ||
        PyModule_AddIntConstant(m, "N_KINDS", N_KINDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
