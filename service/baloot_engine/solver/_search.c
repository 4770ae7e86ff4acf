/* The exact solver's search, compiled: alpha-beta over one deal with every hand known.
 *
 * The pure-Python reference is baloot_engine/solver/reference.py; both compute the same
 * value (tests/solver/test_solver.py checks them against each other and against plain
 * minimax, tests/golden/test_solver_positions.py against the golden positions). The rule
 * tables (card points, trick strengths, the cards that beat a card) are passed in by the
 * Python side from the rules core, so no card value is written twice; the legal cards follow
 * rules/play.py::allowed_cards step by step.
 *
 * A value is 9 * points + tricks for the solver's team, from the position to the end of the
 * round (the cards of the trick in progress and the last-trick 10 included): points come first,
 * tricks break ties (so a kaboot, all eight tricks, is always found where it can be had), and
 * both sides play for their own team. The search is a fail-soft alpha-beta with:
 *   - a transposition table at the start of each trick, keyed by (deal, leader, shape): the
 *     shape of a position is the seats of the cards still held, suit by suit in order of
 *     strength. Positions of one shape win and lose the same tricks however they are played;
 *     only the points of the cards differ, so an entry's bounds hold for every position of its
 *     shape, widened by the points the two differ by (the same position: not widened). Each
 *     entry keeps the cards held, a lower and an upper bound and the best card, in buckets of
 *     two entries (a cache line) where the entry with the fewest cards gives way;
 *   - cards that win and lose the same tricks (adjacent among the cards still out, in one
 *     hand, of equal points) tried once; of different points, the second not tried where the
 *     first one's value or bound and their points' difference keep it out of the window;
 *   - move ordering: the table's best card first, then cards that take the trick;
 *   - at a trick's last card, the table entries of the trick starts each card leads to read
 *     first, and the quick tricks of those where the side to move takes the trick counted,
 *     any of which may end the search (an enhanced transposition cutoff);
 *   - the last trick (one card a hand) counted without a search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#define TT_BITS 19
#define TT_SIZE (1u << TT_BITS)
#define TT_MASK (TT_SIZE - 1u)
#define WAYS 2

/* Cut-site counters: how often each pruning ends a search, compiled in only on request
 * (-DBALOOT_SOLVER_STATS, e.g. CFLAGS=-DBALOOT_SOLVER_STATS pip install .); without it COUNT is
 * nothing and the module has no stats(). */
#ifdef BALOOT_SOLVER_STATS
enum {
    CUT_WINDOW,        /* the rest of the round, or nothing, already past the window */
    CUT_TABLE,         /* a table entry's bounds at a trick's start */
    CUT_QUICK,         /* the leader's quick tricks */
    CUT_CROSSING,      /* the crossing to the partner */
    CUT_SURE_TRUMPS,   /* the sure trumps of either team */
    CUT_ETC_TABLE,     /* at a trick's last card, an entry of a trick start it leads to */
    CUT_ETC_QUICK,     /* at a trick's last card, the quick tricks of the trick's winner */
    CUT_BETA_FIRST,    /* alpha-beta: the first card tried ended the search */
    CUT_BETA_LATER,    /* alpha-beta: a later card ended it */
    SKIP_NEIGHBOUR,    /* a card not tried: its neighbour's value bounds it */
    NODE_TRICK_START,  /* searches at a trick's start (table read) */
    NODE_LAST_TRICK,   /* last tricks counted without a search */
    CUT_SITES
};
static const char *const CUT_NAMES[CUT_SITES] = {
    "window", "table", "quick_tricks", "crossing", "sure_trumps", "etc_table", "etc_quick",
    "beta_first", "beta_later", "neighbour_skipped", "trick_starts", "last_tricks",
};
static uint64_t cut_counts[CUT_SITES];
#define COUNT(site) (cut_counts[(site)]++)
#else
#define COUNT(site) ((void)0)
#endif

/* Partner-winning rules (RuleSet.partner_winning_rule), as the Python side numbers them. */
#define PWR_AKKA_ONLY 0
#define PWR_POSITIONAL 1
#define PWR_ANY 2
#define PWR_NEVER 3

#define ACE 7
#define LAST_TRICK_BONUS 10

/* 32 bytes, two to a cache line: the table is read at every trick's start, and on the dear deals
 * waiting for its memory was a third of the time (a bucket in one cache line and large pages,
 * below, took some 10 % off). A value is at most 4,095 (Deal_init checks the points). */
typedef struct {
    uint64_t shape; /* the seats of the cards held (see shape_of) */
    uint32_t held;  /* the cards held */
    uint32_t owner; /* deal << 2 | leader; 0 = empty */
    uint16_t lower;
    uint16_t upper;
    uint8_t move; /* the best card found */
    uint8_t size; /* the cards each hand holds (see victim) */
    uint8_t unused[10];
} Entry;
_Static_assert(sizeof(Entry) * WAYS == 64, "a bucket of two entries is one cache line");

static Entry *table = NULL;
static uint64_t deals_made = 0;

typedef struct {
    PyObject_HEAD
    uint64_t deal;
    int trump;
    int closed;
    int overtrump_partner;
    int undertrump_required;
    int partner_rule;
    int akka_declared;
    int team;
    uint32_t hands[4];
    uint8_t points[32];
    uint8_t strength[32];
    uint32_t higher[32];     /* cards of the same suit that beat a card, under the contract */
    uint32_t higher_sun[32]; /* the same in the plain order: is a lead the boss of its suit */
    int8_t order[4][8];      /* each suit's cards, strongest first */
    int8_t cheap[4][8];      /* each suit's cards, fewest points first */
    int8_t seat_of[32];      /* who held each card at the start of the search */
    int8_t top_of[4][256];   /* [suit][its cards as 8 bits]: the strongest of them, or -1 */
    uint8_t ranked[4][256];  /* [suit][its cards as 8 bits]: the same cards by strength, bit i
                                for order[suit][i] */
    uint16_t shapepart[4][256]; /* [suit][its cards held as 8 bits]: their seats (shape_of) */
    uint32_t keyed;             /* the cards shapepart covers (with keyed_seat, their seats) */
    int8_t keyed_seat[32];
    uint64_t nodes;
    uint64_t max_nodes; /* 0: no limit */
    double deadline;    /* CLOCK_MONOTONIC seconds; 0: none */
    int stopped;
} Deal;

static const uint32_t SUIT_MASK[4] = {0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u};

static inline int lowest(uint32_t mask) { return __builtin_ctz(mask); }
/* Bits set, without the compiler's library call (no popcount instruction is assumed). */
static inline int count(uint32_t mask) {
    mask = mask - ((mask >> 1) & 0x55555555u);
    mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
    return (int)((((mask + (mask >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

static inline double monotonic(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* The position in the trick of the card that wins it so far (rules/cards.py trick_winner_index). */
static inline int winner_index(const Deal *d, const int *trick, int n) {
    int led = trick[0] >> 3;
    int best = 0;
    for (int i = 1; i < n; i++) {
        int card = trick[i];
        int suit = card >> 3;
        if ((suit == led || suit == d->trump) && d->strength[card] > d->strength[trick[best]]) {
            best = i;
        }
    }
    return best;
}

/* R20: is a void seat whose partner leads the trick free of the duty to trump? */
static int partner_exempts(const Deal *d, const int *trick, int n, int leader, int seat,
                           uint32_t played, int akka) {
    switch (d->partner_rule) {
    case PWR_NEVER:
        return 0;
    case PWR_ANY:
        return 1;
    case PWR_POSITIONAL:
        if (n == 3) return 1;
        break;
    default:
        break;
    }
    if (leader != ((seat + 2) & 3)) return 0;
    for (int i = 0; i < n; i++) {
        if ((trick[i] >> 3) == d->trump) return 0;
    }
    int lead = trick[0];
    if ((lead & 7) == ACE) return 1;
    if (d->akka_declared && !akka) return 0;
    return (d->higher_sun[lead] & ~played) == 0;
}

/* The cards a seat may play (rules/play.py allowed_cards, R18-R22). */
static uint32_t allowed(const Deal *d, uint32_t hand, const int *trick, int n, int leader,
                        int seat, uint32_t played, int akka) {
    int trump = d->trump;
    if (n == 0) {
        if (trump >= 0 && d->closed) {
            uint32_t plain = hand & ~SUIT_MASK[trump];
            if (plain) return plain;
        }
        return hand;
    }
    int led = trick[0] >> 3;
    uint32_t follow = hand & SUIT_MASK[led];
    if (trump < 0) return follow ? follow : hand;
    if (led == trump) {
        if (!follow) return hand;
        int win = winner_index(d, trick, n);
        if (!d->overtrump_partner && (((leader + win) & 1) == (seat & 1))) return follow;
        uint32_t higher = follow & d->higher[trick[win]];
        return higher ? higher : follow;
    }
    if (follow) return follow;
    uint32_t trumps = hand & SUIT_MASK[trump];
    if (!trumps) return hand;
    int win = winner_index(d, trick, n);
    int partner_wins = ((leader + win) & 1) == (seat & 1);
    if (partner_wins && partner_exempts(d, trick, n, leader, seat, played, akka)) return hand;
    int best = trick[win];
    if ((best >> 3) != trump) return trumps;
    if (partner_wins && !d->overtrump_partner) return trumps;
    uint32_t higher = trumps & d->higher[best];
    if (higher) return higher;
    return d->undertrump_required ? trumps : hand;
}

/* Does leading ``card`` call an Akka (only where the call means something, and then always:
 * it only widens the partner's choice, so a perfect leader makes it)? */
static inline int akka_call(const Deal *d, int card, uint32_t played) {
    return d->akka_declared && d->trump >= 0 && (card >> 3) != d->trump && (card & 7) != ACE &&
           (d->higher_sun[card] & ~played) == 0;
}

/* Whose a table entry is: this deal's, with this leader. */
static inline uint32_t owner_of(const Deal *d, int leader) {
    return (uint32_t)(d->deal << 2) | (uint32_t)leader;
}

/* The number of cards of each suit in ``cards``, one suit a byte. */
static inline uint32_t suit_lengths(uint32_t cards) {
    uint32_t x = cards - ((cards >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (x + (x >> 4)) & 0x0F0F0F0Fu;
}

/* The shape of a position: for each suit, the seats of its cards still held in order of
 * strength, two bits a card, the suits one after another. With the suits' lengths it says
 * which seat holds the strongest card of each suit, the next, and so on: positions of one
 * shape (and one leader) offer every seat the same choices, trick after trick, and each line
 * of play gives every trick to the same seat. Only the points in the tricks differ. At most 64
 * bits: 32 cards. */
static inline uint64_t shape_of(const Deal *d, uint32_t held, uint32_t lengths) {
    uint64_t shape = d->shapepart[0][held & 0xFFu];
    shape = shape << (2 * (lengths >> 8 & 0xFu)) | d->shapepart[1][held >> 8 & 0xFFu];
    shape = shape << (2 * (lengths >> 16 & 0xFu)) | d->shapepart[2][held >> 16 & 0xFFu];
    return shape << (2 * (lengths >> 24)) | d->shapepart[3][held >> 24];
}

/* The bucket of a position: from its shape, suit lengths and leader, not from its deal, so that
 * a search makes the same collisions, and tries the same number of cards, whatever deals the
 * process solved before (a seeded bot's work count depends on it). */
static inline uint64_t slot_of(uint64_t shape, uint32_t lengths, uint32_t owner) {
    uint64_t h = (shape ^ (uint64_t)(lengths | (owner & 3u) << 30) << 32) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (h >> (64 - TT_BITS)) & TT_MASK & ~(uint64_t)(WAYS - 1);
}

/* How far the values of two positions of one shape may differ: card by card in order of
 * strength, what ``held``'s cards are worth more (``more``) and less (``less``) than
 * ``other``'s, in value units. Whatever line is played, the same tricks go to the same seats
 * with the cards of the same places, so the team's value in ``held`` is at most ``more`` above
 * and ``less`` below its value in ``other``. */
static void widening(const Deal *d, uint32_t held, uint32_t other, int *more, int *less) {
    int up = 0, down = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint32_t mine = d->ranked[suit][held >> (8 * suit) & 0xFFu];
        uint32_t theirs = d->ranked[suit][other >> (8 * suit) & 0xFFu];
        if (mine == theirs) continue;
        for (; mine; mine &= mine - 1, theirs &= theirs - 1) { /* as many cards in each */
            int diff = d->points[d->order[suit][lowest(mine)]] -
                       d->points[d->order[suit][lowest(theirs)]];
            if (diff > 0) {
                up += diff;
            } else {
                down -= diff;
            }
        }
    }
    *more = 9 * up;
    *less = 9 * down;
}

/* The card of ``held`` in the place that ``card`` has in ``other`` (one shape: the same seat's). */
static inline int same_place(const Deal *d, int card, uint32_t other, uint32_t held) {
    int suit = card >> 3;
    uint32_t place = d->ranked[suit][1u << (card & 7)];
    uint32_t mine = d->ranked[suit][held >> (8 * suit) & 0xFFu];
    for (int above = count(d->ranked[suit][other >> (8 * suit) & 0xFFu] & (place - 1)); above;
         above--) {
        mine &= mine - 1;
    }
    return d->order[suit][lowest(mine)];
}

/* What the table holds for a position: the bounds of its own entry and of the entries of its
 * shape (widened by the points they differ by) narrow ``lower`` and ``upper``. Returns the best
 * card of the position's entry, else of one of its shape (in the same place), else -1. */
static inline int bounds_of(const Deal *d, const Entry *bucket, uint64_t shape, uint32_t lengths,
                            uint32_t held, uint32_t owner, int *lower, int *upper) {
    int hint = -1;
    for (int i = 0; i < WAYS; i++) {
        const Entry *e = &bucket[i];
        if (e->owner != owner || e->shape != shape || suit_lengths(e->held) != lengths) continue;
        int low = (int)e->lower, high = (int)e->upper;
        if (e->held == held) {
            hint = (int)e->move;
        } else {
            int more, less;
            widening(d, held, e->held, &more, &less);
            low -= less;
            high += more;
            if (hint < 0) hint = same_place(d, (int)e->move, e->held, held);
        }
        if (low > *lower) *lower = low;
        if (high < *upper) *upper = high;
    }
    return hint;
}

/* Where a position's bounds go in its bucket: its own entry, else a free one (empty, or another
 * deal's: those count as free, so that what this deal keeps does not depend on the deals solved
 * before), else this deal's entry with the fewest cards (the cheapest to search again). */
static inline Entry *victim(Entry *bucket, uint32_t held, uint32_t owner) {
    Entry *found = NULL;
    for (int i = 0; i < WAYS; i++) {
        Entry *e = &bucket[i];
        if (e->owner == owner && e->held == held) return e;
    }
    for (int i = 0; i < WAYS; i++) {
        Entry *e = &bucket[i];
        if (e->owner == 0 || (e->owner >> 2) != (owner >> 2)) return e; /* another deal's */
        if (found == NULL || e->size < found->size) found = e;
    }
    return found;
}

/* Fill shapepart for every set of the cards ``cards`` (those of the position searched: every
 * later position holds a subset of them), each suit's part computed once rather than at each
 * trick's start. Kept while the cards and their seats stay those of the last fill. */
static void index_keys(Deal *d, uint32_t cards) {
    int same = (cards & ~d->keyed) == 0;
    for (uint32_t m = cards; same && m; m &= m - 1) {
        same = d->keyed_seat[lowest(m)] == d->seat_of[lowest(m)];
    }
    if (same) return;
    for (int suit = 0; suit < 4; suit++) {
        uint32_t all = (cards >> (8 * suit)) & 0xFFu;
        uint32_t sub = all;
        for (;;) { /* every subset of ``all``, itself first and the empty set last */
            uint32_t seats = 0;
            for (int k = 0; k < 8; k++) {
                int card = d->order[suit][k];
                if (sub >> (card & 7) & 1) seats = seats << 2 | (uint32_t)d->seat_of[card];
            }
            d->shapepart[suit][sub] = (uint16_t)seats;
            if (sub == 0) break;
            sub = (sub - 1) & all;
        }
    }
    d->keyed = cards;
    memcpy(d->keyed_seat, d->seat_of, sizeof(d->seat_of));
}

/* The last trick, every seat holding one card: all of them forced. */
static int last_trick(const Deal *d, int leader) {
    COUNT(NODE_LAST_TRICK);
    int trick[4];
    int pts = LAST_TRICK_BONUS;
    for (int i = 0; i < 4; i++) {
        trick[i] = lowest(d->hands[(leader + i) & 3]);
        pts += d->points[trick[i]];
    }
    int winner = (leader + winner_index(d, trick, 4)) & 3;
    return (winner & 1) == d->team ? 9 * pts + 1 : 0;
}

/* The cards worth trying, one of each run of equivalent cards, best guesses first. ``links[i]``
 * is the card tried just above ``out[i]`` in its run when nothing lies between them but cards
 * equivalent to that one (else -1): the two are neighbours, whose values differ by at most their
 * points' difference (see ``search``). ``linked`` has a bit for every card with a neighbour. */
static int candidates(const Deal *d, uint32_t options, uint32_t hand, const int *trick, int n,
                      int leader, int seat, uint32_t played, int hint, int *out, int *links,
                      uint32_t *linked) {
    if (!(options & (options - 1))) {
        out[0] = lowest(options);
        links[0] = -1;
        *linked = 0;
        return 1;
    }
    int link[8];
    uint32_t still = d->hands[0] | d->hands[1] | d->hands[2] | d->hands[3];
    for (int i = 0; i < n; i++) still |= 1u << trick[i];
    int chosen[8];
    int m = 0;
    for (int suit = 0; suit < 4; suit++) {
        int shift = 8 * suit;
        uint32_t mine = options >> shift & 0xFFu;
        if (!mine) continue;
        /* The suit's cards by strength (bit k: order[suit][k]). */
        const uint8_t *ranked = d->ranked[suit];
        uint32_t may = ranked[mine];
        uint32_t held = ranked[hand >> shift & 0xFFu];
        int start = -1;  /* the points of the run's first card; -1: no run */
        int before = -1; /* the card tried for the card just above; -1: none of this seat's */
        for (uint32_t out = ranked[still >> shift & 0xFFu]; out; out &= out - 1) {
            int k = lowest(out);
            if (may >> k & 1) {
                int card = d->order[suit][k];
                if (start != d->points[card]) {
                    start = d->points[card];
                    link[m] = before;
                    before = card;
                    chosen[m++] = card;
                }
            } else {
                before = -1;
                if (!(held >> k & 1)) start = -1;
            }
        }
    }
    /* Ordering, every hand being known: each seat still to play after this one is assumed to
     * play the strongest card it can to the trick (of the suit led, else its best trump); the
     * team that then takes the trick wants the most points in it, the other the fewest. */
    int score[8];
    int team = seat & 1;
    /* The strongest card of the trick so far, and its seat. */
    int so_far = -1, so_far_seat = -1;
    if (n) {
        so_far = trick[0];
        so_far_seat = leader;
        int led0 = trick[0] >> 3;
        for (int k = 1; k < n; k++) {
            int c = trick[k];
            if (((c >> 3) == led0 || (c >> 3) == d->trump) &&
                (((so_far >> 3) == (c >> 3)) ? d->strength[c] > d->strength[so_far]
                                             : (c >> 3) == d->trump)) {
                so_far = c;
                so_far_seat = (leader + k) & 3;
            }
        }
    }
    int tops[4][3]; /* [suit led][seats after this one]: their strongest card, or -1 */
    int known = 0;  /* suits led whose tops are filled */
    for (int i = 0; i < m; i++) {
        int card = chosen[i];
        if (card == hint) {
            score[i] = 1000;
            continue;
        }
        int led = n ? trick[0] >> 3 : card >> 3;
        if (!(known >> led & 1)) {
            known |= 1 << led;
            for (int k = n + 1; k < 4; k++) {
                uint32_t later = d->hands[(leader + k) & 3];
                uint32_t pool = later >> (8 * led) & 0xFFu;
                int top = d->top_of[led][pool];
                if (!pool && d->trump >= 0) {
                    top = d->top_of[d->trump][later >> (8 * d->trump) & 0xFFu];
                }
                tops[led][k - n - 1] = top;
            }
        }
        /* The trick's winner if the rest play their tops. */
        int best = card, best_seat = seat;
        if (n) {
            best = so_far;
            best_seat = so_far_seat;
            int c = card;
            if (((c >> 3) == led || (c >> 3) == d->trump) &&
                (((best >> 3) == (c >> 3)) ? d->strength[c] > d->strength[best]
                                           : (c >> 3) == d->trump)) {
                best = c;
                best_seat = seat;
            }
        }
        for (int k = n + 1; k < 4; k++) {
            int c = tops[led][k - n - 1];
            if (c >= 0 && ((c >> 3) == led || (c >> 3) == d->trump) &&
                (((best >> 3) == (c >> 3)) ? d->strength[c] > d->strength[best]
                                           : (c >> 3) == d->trump)) {
                best = c;
                best_seat = (leader + k) & 3;
            }
        }
        if ((best_seat & 1) == team) {
            score[i] = 200 + d->points[card] - (best_seat == seat ? d->strength[card] / 4 : 0);
        } else {
            score[i] = 100 - d->points[card] - d->strength[card] / 4;
        }
    }
    for (int i = 0; i < m; i++) { /* insertion sort, at most 8 cards */
        int c = chosen[i], s = score[i], l = link[i], j = i;
        while (j > 0 && score[j - 1] < s) {
            chosen[j] = chosen[j - 1];
            score[j] = score[j - 1];
            link[j] = link[j - 1];
            j--;
        }
        chosen[j] = c;
        score[j] = s;
        link[j] = l;
    }
    memcpy(out, chosen, sizeof(int) * (size_t)m);
    memcpy(links, link, sizeof(int) * (size_t)m);
    *linked = 0;
    for (int i = 0; i < m; i++) {
        if (link[i] >= 0) *linked |= 1u << chosen[i] | 1u << link[i];
    }
    (void)played;
    return m;
}

static int search(Deal *d, int *trick, int n, int leader, uint32_t played, int akka, int alpha,
                  int beta, int rest);

/* What the leader's own cash (quick_tricks) leaves for the crossing to his partner. */
typedef struct {
    int value;     /* the bound, in value units */
    int tricks;    /* the tricks cashed */
    int own;       /* the points of the team's cards in them */
    int ruff;      /* the most trumps an opponent may still hold */
    int led[4];    /* the tricks led in each suit */
    uint32_t used; /* the team's cards played in them */
} Cash;

/* The ``k`` cheapest cards of ``suit`` among ``cards`` (all of them if fewer). */
static inline uint32_t cheapest(const Deal *d, int suit, uint32_t cards, int k) {
    uint32_t found = 0;
    cards &= SUIT_MASK[suit];
    for (const int8_t *c = d->cheap[suit]; k > 0 && cards; c++) {
        if (cards >> *c & 1) {
            found |= 1u << *c;
            cards ^= 1u << *c;
            k--;
        }
    }
    return found;
}

/* The points of a set of cards. */
static inline int points_of(const Deal *d, uint32_t cards) {
    int pts = 0;
    for (; cards; cards &= cards - 1) pts += d->points[lowest(cards)];
    return pts;
}

/* A lower bound on what the leader's team takes from a trick's start (DDS's quick tricks, in
 * points): the leader cashes the cards of his that are the strongest still out in their suit,
 * one after another, keeping the lead. A suit counts where nobody can take such a card: the
 * trump suit first (unless the contract is closed, when trumps may not be led), then in Hokm a
 * plain suit only when neither opponent holds a trump once those trumps are cashed (each must
 * follow to them while it holds trumps). Each other seat must follow while it holds the
 * suit, so over the ``c`` cards cashed in a suit it gives at least its ``c`` cheapest cards of
 * that suit (or all it holds); what it plays when void is worth at least nothing. Cashing every
 * trick left takes everything (``rest``). In value units (9 * points + tricks). */
static void quick_tricks(const Deal *d, int leader, int rest, Cash *cash) {
    uint32_t mine = d->hands[leader];
    int left = count(mine);
    int trump = d->trump;
    uint32_t opponents = d->hands[(leader + 1) & 3] | d->hands[(leader + 3) & 3];
    int ruff = 0;
    if (trump >= 0) {
        int a = count(d->hands[(leader + 1) & 3] & SUIT_MASK[trump]);
        int b = count(d->hands[(leader + 3) & 3] & SUIT_MASK[trump]);
        ruff = a > b ? a : b;
    }
    uint32_t partner = d->hands[(leader + 2) & 3];
    uint32_t others = opponents | partner;
    int pts = 0, tricks = 0, own = 0;
    uint32_t used = 0;
    memset(cash->led, 0, sizeof(cash->led));
    for (int step = 0; step < 5; step++) {
        int suit = step == 0 ? trump : step - 1;
        if (suit < 0 || (step > 0 && suit == trump)) continue;
        if (!(mine & SUIT_MASK[suit])) continue;
        if (suit == trump ? d->closed : ruff > 0) continue;
        /* Where nothing frees a void seat whose partner leads from the duty to trump (R20),
         * the partner holding a trump must trump the leader's winner once void in its suit,
         * and the lead would pass to him: cash only the tricks he can follow. */
        int most = 8;
        if (suit != trump && trump >= 0 && d->partner_rule == PWR_NEVER &&
            count(partner & SUIT_MASK[trump]) > cash->led[trump]) {
            most = count(partner & SUIT_MASK[suit]);
        }
        int cashed = 0;
        for (int k = 0; k < 8 && cashed < most; k++) {
            int card = d->order[suit][k];
            if (mine >> card & 1) {
                cashed++;
                own += d->points[card];
                used |= 1u << card;
            } else if (others >> card & 1) {
                break;
            }
        }
        if (!cashed) continue;
        if (suit == trump) ruff = ruff > cashed ? ruff : 0;
        tricks += cashed;
        cash->led[suit] = cashed;
        for (int i = 1; i < 4; i++) { /* each gives its cheapest cards of the suit */
            uint32_t given = cheapest(d, suit, d->hands[(leader + i) & 3], cashed);
            if (i == 2) { /* the partner's: the team's */
                own += points_of(d, given);
                used |= given;
            } else {
                pts += points_of(d, given);
            }
        }
    }
    cash->tricks = tricks;
    cash->own = own;
    cash->ruff = ruff;
    cash->used = used;
    cash->value = tricks >= left ? rest : 9 * (pts + own) + tricks;
}

/* In Hokm, the trumps of the team holding the strongest trump still out, down to the strongest
 * trump of the other team, each take the trick they are played to (only a stronger trump beats
 * a trump, and the other team has none): their points and a trick are that team's, whoever
 * leads and however the play goes. The bound, in value units; ``*whose`` the team (-1, and
 * the bound 0, when no trump is held). */
static int sure_trumps(const Deal *d, int *whose) {
    *whose = -1;
    if (d->trump < 0) return 0;
    uint32_t team0 = (d->hands[0] | d->hands[2]) & SUIT_MASK[d->trump];
    uint32_t team1 = (d->hands[1] | d->hands[3]) & SUIT_MASK[d->trump];
    int pts = 0;
    for (int k = 0; k < 8; k++) {
        int card = d->order[d->trump][k];
        int team = team0 >> card & 1 ? 0 : team1 >> card & 1 ? 1 : -1;
        if (team < 0) continue;
        if (*whose < 0) *whose = team;
        if (team != *whose) break;
        pts += d->points[card];
    }
    return *whose < 0 ? 0 : 9 * pts + 1;
}

/* Whether the crossing (below) may add to the leader's own cash: no opponent may ruff the
 * partner's winners, and the cash has not taken everything already. */
static inline int may_cross(const Cash *cash, int rest) {
    return cash->ruff <= 0 && cash->value != rest;
}

/* The quick tricks continued (after quick_tricks, when no opponent may still hold a trump): the
 * leader crosses to his partner. He leads his cheapest card of a plain suit whose strongest card
 * still out is the partner's (above every card of that suit an opponent holds, and above the
 * card led), and the partner, on lead, cashes his cards of plain suits that are above every card
 * of their suit an opponent holds. Over the whole plan an opponent gives at least his cheapest
 * cards of each suit, as many as it was led (or all he holds); the leader's cards under his
 * partner's count nothing. The partner follows the leader's cash with his cheapest cards (as
 * quick_tricks counts them) and throws, when void, cards the plan does not need: it has enough
 * while the plan takes no more tricks than are left. The best bound over the suits crossed by. */
static int crossing(const Deal *d, int leader, int rest, const Cash *cash) {
    int trump = d->trump;
    uint32_t mine = d->hands[leader] & ~cash->used;
    /* The leader, void in a suit his partner cashes, must trump it where nothing frees him
     * (R20): the lead would come back to him. */
    if (trump >= 0 && d->partner_rule == PWR_NEVER && (mine & SUIT_MASK[trump])) return 0;
    uint32_t spare = d->hands[(leader + 2) & 3] & ~cash->used;
    uint32_t lho = d->hands[(leader + 1) & 3], rho = d->hands[(leader + 3) & 3];
    uint32_t opponents = lho | rho;
    int room = count(d->hands[leader]) - cash->tricks - 1; /* tricks after the crossing */
    uint32_t above[4]; /* each plain suit's cards above every card of it an opponent holds */
    int reach = 0;     /* the suits the leader may cross by */
    for (int suit = 0; suit < 4; suit++) {
        above[suit] = 0;
        if (suit == trump) continue;
        int top = d->top_of[suit][opponents >> (8 * suit) & 0xFFu];
        above[suit] = top < 0 ? SUIT_MASK[suit] : d->higher[top];
        if ((mine & SUIT_MASK[suit]) && (spare & above[suit])) reach |= 1 << suit;
    }
    if (!reach) return 0;
    uint32_t runs = 0; /* the partner's cards above the opponents' */
    for (int suit = 0; suit < 4; suit++) runs |= spare & above[suit];
    int best = 0;
    for (int entry = 0; entry < 4; entry++) {
        if (!(reach >> entry & 1)) continue;
        int low = lowest(cheapest(d, entry, mine, 1)); /* the leader's card led */
        int top = d->top_of[entry][spare >> (8 * entry) & 0xFFu];
        if (d->strength[top] <= d->strength[low]) continue;
        uint32_t cashed = runs & ~(1u << top); /* the partner's tricks after the crossing */
        int more = count(cashed);
        if (more >= room) return rest; /* every trick left */
        int gained = cash->own + d->points[low] + d->points[top] + points_of(d, cashed);
        for (int suit = 0; suit < 4; suit++) {
            int times = cash->led[suit] + (suit == entry) + count(cashed & SUIT_MASK[suit]);
            if (!times) continue; /* each opponent gives his cheapest cards of the suit */
            gained += points_of(d, cheapest(d, suit, lho, times) | cheapest(d, suit, rho, times));
        }
        int value = 9 * gained + cash->tricks + 1 + more;
        if (value > best) best = value;
    }
    return best;
}


/* The trick just completed: its value to the team plus the rest of the round. */
static int after_trick(Deal *d, const int *trick, int leader, uint32_t played, int alpha,
                       int beta, int rest) {
    int winner = (leader + winner_index(d, trick, 4)) & 3;
    uint32_t held = d->hands[0] | d->hands[1] | d->hands[2] | d->hands[3];
    int pts = d->points[trick[0]] + d->points[trick[1]] + d->points[trick[2]] +
              d->points[trick[3]];
    if (!held) pts += LAST_TRICK_BONUS;
    int gained = 9 * pts + 1;
    int mine = (winner & 1) == d->team ? gained : 0;
    if (!held) return mine;
    uint32_t next_hand = d->hands[winner]; /* every hand holds as many cards */
    if (!(next_hand & (next_hand - 1))) return mine + last_trick(d, winner);
    uint32_t now = played | 1u << trick[0] | 1u << trick[1] | 1u << trick[2] | 1u << trick[3];
    int next[4];
    return mine + search(d, next, 0, winner, now, 0, alpha - mine, beta - mine, rest - gained);
}

/* For the trick's last seat, ``cards`` its cards to try: a value that ends the search from the
 * trick starts they lead to, or -1. First their table entries; then, for each card after which
 * the side to move takes the trick, the quick tricks (and the crossing) of its leader there: a
 * bound that would end that card's search at once ends this one, before any card is tried. */
static int cutoff_after(Deal *d, int *trick, int leader, const int *cards, int m,
                        int maximising, int alpha, int beta, int rest) {
    uint32_t held = d->hands[0] | d->hands[1] | d->hands[2] | d->hands[3];
    uint64_t shapes[8];
    uint32_t owners[8];
    int gained[8];
    int winners[8];
    const Entry *slots[8];
    int pts = d->points[trick[0]] + d->points[trick[1]] + d->points[trick[2]];
    for (int i = 0; i < m; i++) {
        int card = cards[i];
        trick[3] = card;
        int winner = (leader + winner_index(d, trick, 4)) & 3;
        winners[i] = winner;
        uint32_t after = held ^ 1u << card;
        uint32_t lengths = suit_lengths(after);
        shapes[i] = shape_of(d, after, lengths);
        owners[i] = owner_of(d, winner);
        slots[i] = &table[slot_of(shapes[i], lengths, owners[i])];
        __builtin_prefetch(slots[i]);
        gained[i] = (winner & 1) == d->team ? 9 * (pts + d->points[card]) + 1 : 0;
    }
    for (int i = 0; i < m; i++) {
        uint32_t after = held ^ 1u << cards[i];
        int lower = 0, upper = 1 << 16;
        bounds_of(d, slots[i], shapes[i], suit_lengths(after), after, owners[i], &lower, &upper);
        if (maximising && gained[i] + lower >= beta) {
            COUNT(CUT_ETC_TABLE);
            return gained[i] + lower;
        }
        if (!maximising && gained[i] + upper <= alpha) {
            COUNT(CUT_ETC_TABLE);
            return gained[i] + upper;
        }
    }
    int seat = (leader + 3) & 3;
    for (int i = 0; i < m; i++) {
        int card = cards[i];
        int winner = winners[i];
        if (((winner & 1) == d->team) != maximising) continue;
        int after = rest - (9 * (pts + d->points[card]) + 1); /* what is left after the trick */
        int need = maximising ? beta - gained[i] : after - alpha; /* a bound that ends it */
        d->hands[seat] ^= 1u << card;
        Cash cash;
        quick_tricks(d, winner, after, &cash);
        int bound = cash.value;
        if (bound < need && may_cross(&cash, after)) {
            int crossed = crossing(d, winner, after, &cash);
            if (crossed > bound) bound = crossed;
        }
        d->hands[seat] ^= 1u << card;
        if (bound >= need) {
            COUNT(CUT_ETC_QUICK);
            return maximising ? gained[i] + bound : after - bound;
        }
    }
    return -1;
}

static int search(Deal *d, int *trick, int n, int leader, uint32_t played, int akka, int alpha,
                  int beta, int rest) {
    if (rest <= alpha) {
        COUNT(CUT_WINDOW);
        return rest;
    }
    if (beta <= 0) {
        COUNT(CUT_WINDOW);
        return 0;
    }
    if (n == 4) return after_trick(d, trick, leader, played, alpha, beta, rest);
    Entry *bucket = NULL;
    uint64_t shape = 0;
    uint32_t owner = 0, held = 0;
    int lower = 0, upper = rest, hint = -1;
    int low = alpha, high = beta;
    if (n == 0) {
        uint32_t lead_hand = d->hands[leader]; /* every hand holds as many cards */
        if (!(lead_hand & (lead_hand - 1))) return last_trick(d, leader);
        COUNT(NODE_TRICK_START);
        held = d->hands[0] | d->hands[1] | d->hands[2] | d->hands[3];
        uint32_t lengths = suit_lengths(held);
        shape = shape_of(d, held, lengths);
        owner = owner_of(d, leader);
        bucket = &table[slot_of(shape, lengths, owner)];
        __builtin_prefetch(bucket); /* read while the quick tricks are counted */
        Cash cash;
        quick_tricks(d, leader, rest, &cash);
        hint = bounds_of(d, bucket, shape, lengths, held, owner, &lower, &upper);
        if (lower >= beta || lower >= upper || upper <= alpha) {
            COUNT(CUT_TABLE);
            return lower >= beta || lower >= upper ? lower : upper;
        }
        /* The leader's own cash, the crossing to his partner, then the sure trumps of either
         * team: each a lower bound for one team's value. */
        for (int pass = 0; pass < 3; pass++) {
            int bound = cash.value, ours = (leader & 1) == d->team;
            if (pass == 1) {
                if (!may_cross(&cash, rest)) continue;
                bound = crossing(d, leader, rest, &cash);
            } else if (pass == 2) {
                int whose;
                bound = sure_trumps(d, &whose);
                if (!bound) break;
                ours = whose == d->team;
            }
            if (ours) {
                if (bound > lower) lower = bound;
            } else if (rest - bound < upper) {
                upper = rest - bound;
            }
            if (lower >= beta || lower == upper || upper <= alpha) {
                COUNT(pass == 0 ? CUT_QUICK : pass == 1 ? CUT_CROSSING : CUT_SURE_TRUMPS);
                return lower >= beta || lower == upper ? lower : upper;
            }
        }
        if (lower > low) low = lower;
        if (upper < high) high = upper;
    }
    int seat = (leader + n) & 3;
    uint32_t hand = d->hands[seat];
    uint32_t options = allowed(d, hand, trick, n, leader, seat, played, akka);
    int cards[8], links[8], seen[8];
    uint32_t linked;
    int m = candidates(d, options, hand, trick, n, leader, seat, played, hint, cards, links, &linked);
    int maximising = (seat & 1) == d->team;
    /* The trick's last card, three cards or more a hand: every card leads to a trick's start,
     * whose table entry may already end this search (an enhanced transposition cutoff). The
     * entries are fetched together, so their memory is waited for once. */
    if (n == 3 && m > 1 && count(hand) >= 3) {
        int cut = cutoff_after(d, trick, leader, cards, m, maximising, alpha, beta, rest);
        if (cut >= 0) return cut;
    }
    int best_value = maximising ? -1 : 1 << 30;
    int best_card = cards[0];
    /* Neighbours: two cards of this hand next to each other among the cards still out (and
     * cards equivalent to them) win and lose the same tricks whatever is played, since every
     * seat has the same choices in both lines; only the points of the two differ. Played now,
     * one of them goes to this trick and the other to the later trick it is played to, so the
     * two lines' values differ by at most 9 times the points' difference. A card whose
     * neighbour's value, or bound, is that far past the window is not tried: its bound counts.
     * Not for a Hokm lead of a plain suit, where leading the Ace or the strongest card still
     * out frees the partner from trumping (R20) and a card below it does not. */
    int neighbours = n > 0 || d->trump < 0;
    for (int i = 0; i < m; i++) {
        int card = cards[i];
        if ((linked >> card & 1) && (neighbours || (card >> 3) == d->trump)) {
            int skip = 0;
            for (int j = 0; j < i && !skip; j++) {
                int other = cards[j];
                if (links[i] != other && links[j] != card) continue;
                int swing = 9 * (d->points[card] - d->points[other]);
                if (swing < 0) swing = -swing;
                if (maximising && seen[j] + swing <= low) {
                    skip = 1;
                    seen[i] = seen[j] + swing; /* at most */
                    if (seen[i] > best_value) best_value = seen[i];
                } else if (!maximising && seen[j] - swing >= high) {
                    skip = 1;
                    seen[i] = seen[j] - swing; /* at least */
                    if (seen[i] < best_value) best_value = seen[i];
                }
            }
            if (skip) {
                COUNT(SKIP_NEIGHBOUR);
                continue;
            }
        }
        d->nodes++;
        if ((d->nodes & 0x3FF) == 0 &&
            ((d->max_nodes && d->nodes > d->max_nodes) ||
             (d->deadline > 0 && monotonic() > d->deadline))) {
            d->stopped = 1;
        }
        if (d->stopped) return 0;
        d->hands[seat] ^= 1u << card;
        trick[n] = card;
        int value;
        if (n == 3) {
            value = after_trick(d, trick, leader, played, low, high, rest);
        } else {
            int call = n == 0 ? akka_call(d, card, played) : akka;
            value = search(d, trick, n + 1, leader, played, call, low, high, rest);
        }
        d->hands[seat] ^= 1u << card;
        if (d->stopped) return 0;
        seen[i] = value; /* a bound past the window, or the value */
        if (maximising) {
            if (value > best_value) {
                best_value = value;
                best_card = card;
                if (value > low) low = value;
            }
        } else if (value < best_value) {
            best_value = value;
            best_card = card;
            if (value < high) high = value;
        }
        if (low >= high) {
            COUNT(i == 0 ? CUT_BETA_FIRST : CUT_BETA_LATER);
            break;
        }
    }
    if (bucket != NULL) {
        /* Searched deeper, the entry found may have gone to another position of the bucket. */
        int size = count(d->hands[leader]);
        Entry *entry = victim(bucket, held, owner);
        /* Bounds relative to the window searched (narrowed by the entry's own bounds). */
        int a = alpha > lower ? alpha : lower;
        int b = beta < upper ? beta : upper;
        if (best_value <= a) {
            if (best_value < upper) upper = best_value;
        } else if (best_value >= b) {
            if (best_value > lower) lower = best_value;
        } else {
            lower = upper = best_value;
        }
        entry->shape = shape;
        entry->held = held;
        entry->owner = owner;
        entry->lower = (unsigned)lower;
        entry->upper = (unsigned)upper;
        entry->move = (unsigned)best_card;
        entry->size = (unsigned)size;
    }
    return best_value;
}

/* ---------------------------------------------------------------------------------------- */
/* The Python type. */

static int read_u32s(PyObject *seq, uint32_t *out, Py_ssize_t size, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != size) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd values", what, size);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v > 0xFFFFFFFFul) {
            PyErr_Format(PyExc_ValueError, "%s: value out of range", what);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (uint32_t)v;
    }
    Py_DECREF(fast);
    return 0;
}

/* The tables that depend on the trick strengths only (top_of, ranked): the same for every deal
 * of a contract, so the first deal of each set of strengths computes them and later ones copy. */
typedef struct {
    uint8_t strength[32];
    int8_t top_of[4][256];
    uint8_t ranked[4][256];
} StrengthTables;

static StrengthTables known_tables[8];
static int tables_known = 0;

static void strength_tables(Deal *self) {
    for (int i = 0; i < tables_known; i++) {
        const StrengthTables *t = &known_tables[i];
        if (memcmp(t->strength, self->strength, sizeof(t->strength)) == 0) {
            memcpy(self->top_of, t->top_of, sizeof(t->top_of));
            memcpy(self->ranked, t->ranked, sizeof(t->ranked));
            return;
        }
    }
    for (int suit = 0; suit < 4; suit++) { /* each set from the set without its lowest card */
        int8_t *top = self->top_of[suit];
        uint8_t *ranked = self->ranked[suit];
        int place[8]; /* place[rank]: the card's place in order[suit] */
        for (int k = 0; k < 8; k++) place[self->order[suit][k] & 7] = k;
        top[0] = -1;
        ranked[0] = 0;
        for (int mask = 1; mask < 256; mask++) {
            int low = lowest((uint32_t)mask), rest = mask & (mask - 1);
            int card = suit * 8 + low;
            ranked[mask] = (uint8_t)(ranked[rest] | 1u << place[low]);
            top[mask] = (int8_t)(rest && self->strength[top[rest]] > self->strength[card] ? top[rest]
                                                                                          : card);
        }
    }
    if (tables_known < 8) { /* Sun and the four trumps: five in practice */
        StrengthTables *t = &known_tables[tables_known++];
        memcpy(t->strength, self->strength, sizeof(t->strength));
        memcpy(t->top_of, self->top_of, sizeof(t->top_of));
        memcpy(t->ranked, self->ranked, sizeof(t->ranked));
    }
}

/* The table, zeroed, on large pages where the system gives them: 16 MB read at random places,
 * which on 4 kB pages costs an address-translation miss at nearly every read. */
static Entry *new_table(void) {
#if defined(__unix__) || defined(__APPLE__)
    size_t size = (size_t)TT_SIZE * sizeof(Entry);
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
        madvise(memory, size, MADV_HUGEPAGE);
#endif
        return memory;
    }
#endif
    /* Kept for the process's life; aligned so that a bucket is one cache line. */
    char *raw = PyMem_RawCalloc(TT_SIZE + WAYS, sizeof(Entry));
    if (raw == NULL) return NULL;
    return (Entry *)(raw + (64 - (uintptr_t)raw % 64) % 64);
}

static int Deal_init(Deal *self, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"trump", "closed", "overtrump_partner", "undertrump_required",
                               "partner_rule", "akka_declared", "team", "points", "strength",
                               "higher", "higher_sun", NULL};
    PyObject *points, *strength, *higher, *higher_sun;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiiiiOOOO", keywords, &self->trump,
                                     &self->closed, &self->overtrump_partner,
                                     &self->undertrump_required, &self->partner_rule,
                                     &self->akka_declared, &self->team, &points, &strength,
                                     &higher, &higher_sun)) {
        return -1;
    }
    if (self->trump < -1 || self->trump > 3 || self->team < 0 || self->team > 1 ||
        self->partner_rule < 0 || self->partner_rule > 3) {
        PyErr_SetString(PyExc_ValueError, "trump, team or partner rule out of range");
        return -1;
    }
    uint32_t values[32];
    if (read_u32s(points, values, 32, "points") < 0) return -1;
    uint32_t total = LAST_TRICK_BONUS;
    for (int i = 0; i < 32; i++) {
        if (values[i] > 20) {
            PyErr_SetString(PyExc_ValueError, "points: a card is worth at most 20");
            return -1;
        }
        self->points[i] = (uint8_t)values[i];
        total += values[i];
    }
    if (9 * total + 8 > 4095) { /* a value (9 * points + tricks) must fit 12 bits in the table */
        PyErr_SetString(PyExc_ValueError, "points: at most 454 in all with the last trick's 10");
        return -1;
    }
    if (read_u32s(strength, values, 32, "strength") < 0) return -1;
    for (int i = 0; i < 32; i++) {
        if (values[i] > 255) {
            PyErr_SetString(PyExc_ValueError, "strength: out of range");
            return -1;
        }
        self->strength[i] = (uint8_t)values[i];
    }
    if (read_u32s(higher, self->higher, 32, "higher") < 0) return -1;
    if (read_u32s(higher_sun, self->higher_sun, 32, "higher_sun") < 0) return -1;
    for (int suit = 0; suit < 4; suit++) {
        int k = 0;
        for (int r = 0; r < 8; r++) self->order[suit][k++] = (int8_t)(suit * 8 + r);
        for (int i = 1; i < 8; i++) { /* strongest first */
            int8_t c = self->order[suit][i];
            int j = i;
            while (j > 0 && self->strength[self->order[suit][j - 1]] < self->strength[c]) {
                self->order[suit][j] = self->order[suit][j - 1];
                j--;
            }
            self->order[suit][j] = c;
        }
    }
    if (table == NULL) {
        table = new_table();
        if (table == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (int suit = 0; suit < 4; suit++) {
        for (int i = 0; i < 8; i++) { /* fewest points first */
            int8_t c = (int8_t)(suit * 8 + i);
            int j = i;
            while (j > 0 && self->points[self->cheap[suit][j - 1]] > self->points[c]) {
                self->cheap[suit][j] = self->cheap[suit][j - 1];
                j--;
            }
            self->cheap[suit][j] = c;
        }
    }
    strength_tables(self);
    self->keyed = 0;
    self->deal = ++deals_made & ((1ull << 29) - 1);
    if (self->deal == 0) self->deal = ++deals_made & ((1ull << 29) - 1);
    self->nodes = 0;
    return 0;
}

/* value(hands, trick, leader, played, akka, max_nodes=0, deadline=0.0) -> int or None
 *
 * The value of the rest of the round for the team, from a position of this deal. ``hands``
 * are the four seats' cards still held, ``trick`` the cards of the trick in progress (0-4,
 * from ``leader`` on), ``played`` the cards of the completed tricks. None when the node limit
 * or the deadline stopped the search (nothing partial is returned). */
static PyObject *Deal_value(Deal *self, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"hands", "trick", "leader", "played", "akka", "max_nodes",
                               "deadline", "alpha", "beta", NULL};
    PyObject *hands_seq, *trick_seq;
    int leader, akka;
    unsigned long played;
    unsigned long long max_nodes = 0;
    double deadline = 0.0;
    int alpha = -1, beta = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOikp|Kdii", keywords, &hands_seq, &trick_seq,
                                     &leader, &played, &akka, &max_nodes, &deadline, &alpha,
                                     &beta)) {
        return NULL;
    }
    uint32_t hands[4];
    if (read_u32s(hands_seq, hands, 4, "hands") < 0) return NULL;
    PyObject *fast = PySequence_Fast(trick_seq, "trick");
    if (fast == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > 4) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "trick: at most 4 cards");
        return NULL;
    }
    int trick[4] = {0, 0, 0, 0};
    uint32_t seen = (uint32_t)played;
    for (int s = 0; s < 4; s++) {
        if (seen & hands[s]) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a card is in two places");
            return NULL;
        }
        seen |= hands[s];
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long card = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (card == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        if (card < 0 || card > 31 || (seen >> card & 1)) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "trick: a card out of range or in two places");
            return NULL;
        }
        seen |= 1u << card;
        trick[i] = (int)card;
    }
    Py_DECREF(fast);
    if (leader < 0 || leader > 3 || played > 0xFFFFFFFFul) {
        PyErr_SetString(PyExc_ValueError, "leader or played out of range");
        return NULL;
    }
    /* Every seat still to play to this trick holds one card more than those who have. */
    int size = count(hands[leader]) + (n > 0 ? 1 : 0);
    for (int i = 0; i < 4; i++) {
        int expected = i < n ? size - 1 : size;
        if (n == 4) expected = size - 1;
        if (count(hands[(leader + i) & 3]) != expected) {
            PyErr_SetString(PyExc_ValueError, "the hands do not fit the trick in progress");
            return NULL;
        }
    }
    memcpy(self->hands, hands, sizeof(hands));
    for (int i = 0; i < 32; i++) self->seat_of[i] = -1;
    for (int s = 0; s < 4; s++) {
        for (uint32_t m = hands[s]; m; m &= m - 1) self->seat_of[lowest(m)] = (int8_t)s;
    }
    for (int i = 0; i < n; i++) self->seat_of[trick[i]] = (int8_t)((leader + i) & 3);
    index_keys(self, hands[0] | hands[1] | hands[2] | hands[3]);
    int rest = LAST_TRICK_BONUS;
    uint32_t out = hands[0] | hands[1] | hands[2] | hands[3];
    for (int i = 0; i < n; i++) out |= 1u << trick[i];
    int tricks = count(hands[leader]) + (n > 0 ? 1 : 0);
    if (n == 4) tricks = count(hands[leader]) + 1;
    if (tricks == 0) {
        PyErr_SetString(PyExc_ValueError, "the round is over");
        return NULL;
    }
    for (uint32_t m = out; m; m &= m - 1) rest += self->points[lowest(m)];
    rest = 9 * rest + tricks;
    self->max_nodes = max_nodes ? self->nodes + max_nodes : 0;
    self->deadline = deadline;
    self->stopped = 0;
    int value;
    if (n == 0 && count(out) == 4) {
        value = last_trick(self, leader);
    } else {
        if (beta < 0 || beta > rest + 1) beta = rest + 1;
        if (alpha < -1) alpha = -1;
        value = search(self, trick, (int)n, leader, (uint32_t)played, akka, alpha, beta, rest);
    }
    if (self->stopped) Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

static PyObject *Deal_get_nodes(Deal *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->nodes);
}

static PyMethodDef Deal_methods[] = {
    {"value", (PyCFunction)(void (*)(void))Deal_value, METH_VARARGS | METH_KEYWORDS,
     "value(hands, trick, leader, played, akka, max_nodes=0, deadline=0.0): the value of the "
     "rest of the round (9 * points + tricks for the team), or None if stopped."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Deal_getset[] = {
    {"nodes", (getter)Deal_get_nodes, NULL, "Cards tried so far on this deal.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject DealType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "baloot_engine.solver._search.Deal",
    .tp_doc = "One deal's search: the rule tables, the team counted and its node count.",
    .tp_basicsize = sizeof(Deal),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Deal_init,
    .tp_methods = Deal_methods,
    .tp_getset = Deal_getset,
};

#ifdef BALOOT_SOLVER_STATS
/* stats(reset=False) -> dict: each cut site's count since the last reset (see COUNT). */
static PyObject *module_stats(PyObject *self, PyObject *args, PyObject *kwds) {
    (void)self;
    static char *keywords[] = {"reset", NULL};
    int reset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p", keywords, &reset)) return NULL;
    PyObject *found = PyDict_New();
    if (found == NULL) return NULL;
    for (int i = 0; i < CUT_SITES; i++) {
        PyObject *value = PyLong_FromUnsignedLongLong(cut_counts[i]);
        if (value == NULL || PyDict_SetItemString(found, CUT_NAMES[i], value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(value);
    }
    if (reset) memset(cut_counts, 0, sizeof(cut_counts));
    return found;
}

static PyMethodDef module_methods[] = {
    {"stats", (PyCFunction)(void (*)(void))module_stats, METH_VARARGS | METH_KEYWORDS,
     "stats(reset=False): how often each cut site ended a search (built with "
     "BALOOT_SOLVER_STATS only)."},
    {NULL, NULL, 0, NULL},
};
#define MODULE_METHODS module_methods
#else
#define MODULE_METHODS NULL
#endif

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_search", "The exact solver's compiled search.", -1, MODULE_METHODS,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) {
    if (PyType_Ready(&DealType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&DealType);
    if (PyModule_AddObject(m, "Deal", (PyObject *)&DealType) < 0) {
        Py_DECREF(&DealType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
