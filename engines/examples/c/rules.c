/* Move generation and execution for the three variants (see rules.h).
 *
 * Bao la Kiswahili and Bao la Kete (docs/rules/bao-la-kiswahili.md, bao-la-kete.md): every
 * candidate move is executed, and it is legal if it ends. The laps are played by sow(), the
 * classes of moves and their fallbacks are tried in order by bao_generate(). Bao la Kete adds
 * D1 (a kuu of exactly six is emptied by the tax), D2 (the first mtaji takata from the kuu)
 * and D3 (hizi zetu: captures of the marked pit first).
 * Bao Kingulu (docs/rules/bao-kingulu.md): kingulu_sow() plays one move.
 *
 * A move that needs more than 10,000 laps never ends and is illegal (rules 8): counting the
 * laps gives the same verdict as arena/rules' cycle detection, only more slowly.
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const VARIANT_IDS[VARIANT_COUNT] = {"bao-la-kete", "bao-la-kiswahili", "bao-kingulu"};
const long PLY_CAP[VARIANT_COUNT] = {1000, 1000, 500};

#define MAX_LAPS 10000
#define TOTAL_BAO_SEEDS 64

/* ------------------------------------------------------------------ Bao: squares */

static const char FILES[] = "abcdefgh";

/* The square of relative pit `index` of `owner` (0 South, 1 North), e.g. "e2". */
static void square_name(int owner, int index, char *out)
{
    if (owner == 0) {
        out[0] = index < 8 ? FILES[index] : FILES[15 - index];
        out[1] = index < 8 ? '2' : '1';
    } else {
        out[0] = index < 8 ? FILES[7 - index] : FILES[index - 8];
        out[1] = index < 8 ? '3' : '4';
    }
    out[2] = '\0';
}

/* (owner, index) of a square name, or -1 for a bad name. */
static int square_index(const char *s, int *owner, int *index)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '4')
        return -1;
    int f = s[0] - 'a';
    switch (s[1]) {
    case '2': *owner = 0; *index = f; break;
    case '1': *owner = 0; *index = 15 - f; break;
    case '3': *owner = 1; *index = 7 - f; break;
    default: *owner = 1; *index = 8 + f; break;
    }
    return 0;
}

/* ------------------------------------------------------------------ Bao: sowing */

enum { ENDED, NEVER_ENDING, FRONT_ROW_EMPTIED, WON, NEEDS_CHOICE };
enum { NO_CHOICE, STOP, SAFARI };

typedef struct {
    int code;
    int house_me, house_opp;
    int hand;       /* seeds in hand after a win in the middle of the move */
    int priority;   /* the priority pit was captured (Bao la Kete D3) */
} SowResult;

static int any_front(const int *pits)
{
    for (int i = 0; i < 8; i++)
        if (pits[i])
            return 1;
    return 0;
}

static int wrap16(int i) { return ((i % 16) + 16) % 16; }

/* Play the rest of a move whose first lap is n seeds sown from pit pos in direction d (+1
 * clockwise, -1 anticlockwise); n == 0: the move continues at the lap end in pos (a namua
 * capture, whose reserve seed is already in pos). me and opp are the mover's and the
 * opponent's pits, changed in place. capture: capture mode; namua: the mover's reserve was
 * positive (the nyumba stops a lap); choice: the nyumba choice of a namua capture; stop_pit:
 * the mover's takasia'd pit or -1; priority_pit: the opponent's marked pit or -1. */
static SowResult sow(int *me, int *opp, int pos, int n, int d, int capture, int namua,
                     int house_me, int house_opp, int choice, int stop_pit, int priority_pit)
{
    SowResult r = {ENDED, house_me, house_opp, 0, 0};
    int takata = !capture;
    int laps = 0;
    int last = pos;
    for (;;) {
        if (n) {
            if (++laps > MAX_LAPS) {
                r.code = NEVER_ENDING;
                break;
            }
            int rounds = n / 16, rest = n % 16;
            if (rounds)
                for (int i = 0; i < 16; i++)
                    me[i] += rounds;
            int i = pos;
            for (int k = 0; k < rest; k++) {
                me[i]++;
                i = (i + d) & 15;
            }
            last = wrap16(pos + d * (n - 1));
        }
        int seeds = me[last];
        if (seeds == 1)
            break; /* the lap ended in an empty pit */
        if (capture && last < 8) {
            int target = 7 - last;
            int taken = opp[target];
            if (taken) {
                opp[target] = 0;
                if (target == 4)
                    r.house_opp = 0;
                if (target == priority_pit)
                    r.priority = 1;
                if (!any_front(opp)) {
                    r.code = WON;
                    r.hand = taken;
                    break;
                }
                if (last < 2)
                    d = 1; /* a kimbi forces its kichwa and the direction */
                else if (last > 5)
                    d = -1;
                pos = d == 1 ? 0 : 7;
                n = taken;
                continue;
            }
        }
        if (namua && last == 4 && r.house_me && seeds >= 6) {
            if (takata || choice == STOP)
                break; /* the nyumba stops the move */
            if (choice == NO_CHOICE) {
                r.code = NEEDS_CHOICE;
                break;
            }
            /* SAFARI: relay from the nyumba, which destroys it */
        }
        if (takata && last == stop_pit)
            break;
        me[last] = 0; /* relay */
        if (last == 4)
            r.house_me = 0;
        pos = (last + d) & 15;
        if (takata && pos > 7 && last < 8 && !any_front(me)) {
            r.code = FRONT_ROW_EMPTIED;
            break;
        }
        n = seeds;
    }
    return r;
}

/* Mtaji capture candidates: pits with 2..15 seeds whose first lap ends in an occupied own
 * front pit facing an occupied opponent pit. Writes (pit, direction, landing) triples. */
static int capture_landings(const int *me, const int *opp, int out[][3])
{
    int count = 0;
    for (int p = 0; p < 16; p++) {
        int n = me[p];
        if (n < 2 || n > 15)
            continue;
        for (int d = 1; d >= -1; d -= 2) {
            int landing = wrap16(p + d * n);
            if (landing < 8 && me[landing] && opp[7 - landing]) {
                out[count][0] = p;
                out[count][1] = d;
                out[count][2] = landing;
                count++;
            }
        }
    }
    return count;
}

/* ------------------------------------------------------------------ Bao: candidates */

typedef struct {
    int code;
    int mine[16], theirs[16];
    int house_me, house_opp;
    int takata;
    int priority;
    int pit, d, choice;
} Raw;

typedef struct {
    const Position *position;
    int si;          /* the mover: 0 South, 1 North */
    const int *me, *opp;
    int house_me, house_opp;
    int stop;        /* the mover's takasia'd pit, or -1 */
    int priority;    /* the opponent's marked pit (hizi zetu), or -1 */
    Raw *out;
    int count;
} Runner;

static Raw *new_raw(Runner *r, int pit, int d, int choice)
{
    Raw *raw = &r->out[r->count];
    raw->pit = pit;
    raw->d = d;
    raw->choice = choice;
    return raw;
}

static void namua_capture(Runner *r, int i, int d)
{
    for (int choice = NO_CHOICE; choice <= SAFARI; choice++) {
        Raw *raw = new_raw(r, i, d, choice);
        memcpy(raw->mine, r->me, sizeof raw->mine);
        memcpy(raw->theirs, r->opp, sizeof raw->theirs);
        raw->mine[i] += 1;
        SowResult s = sow(raw->mine, raw->theirs, i, 0, d, 1, 1, r->house_me, r->house_opp,
                          choice, -1, r->priority);
        if (s.code == NEEDS_CHOICE)
            continue; /* only the completed forms "s" and "c" exist */
        if (s.code == ENDED || s.code == WON) {
            raw->code = s.code;
            raw->house_me = s.house_me;
            raw->house_opp = s.house_opp;
            raw->takata = 0;
            raw->priority = s.priority;
            r->count++;
        }
        if (choice == NO_CHOICE)
            return;
    }
}

static void takata(Runner *r, int p, int d, Raw *raw, int seeds, int house, int namua)
{
    /* K-9: lifting the last occupied front pit and sowing out of the front row */
    if (((p == 7 && d == 1) || (p == 0 && d == -1)) && !any_front(raw->mine))
        return;
    memcpy(raw->theirs, r->opp, sizeof raw->theirs);
    SowResult s = sow(raw->mine, raw->theirs, (p + d) & 15, seeds, d, 0, namua, house,
                      r->house_opp, NO_CHOICE, r->stop, -1);
    if (s.code != ENDED)
        return;
    raw->code = ENDED;
    raw->house_me = s.house_me;
    raw->house_opp = s.house_opp;
    raw->takata = 1;
    raw->priority = 0;
    r->count++;
}

static void namua_takata(Runner *r, int p)
{
    for (int d = 1; d >= -1; d -= 2) {
        Raw *raw = new_raw(r, p, d, NO_CHOICE);
        memcpy(raw->mine, r->me, sizeof raw->mine);
        int seeds = raw->mine[p] + 1;
        raw->mine[p] = 0;
        takata(r, p, d, raw, seeds, r->house_me && p != 4, 1);
    }
}

static void namua_tax(Runner *r)
{
    int lifted = 2, destroyed = 0;
    if (r->position->variant == KETE && r->me[4] == 6) {
        lifted = 7; /* D1: a kuu of exactly six is emptied and destroyed */
        destroyed = 1;
    }
    for (int d = 1; d >= -1; d -= 2) {
        Raw *raw = new_raw(r, 4, d, NO_CHOICE);
        memcpy(raw->mine, r->me, sizeof raw->mine);
        raw->mine[4] += 1 - lifted;
        takata(r, 4, d, raw, lifted, r->house_me && !destroyed, 1);
    }
}

static void mtaji_move(Runner *r, int p, int d, int capture)
{
    Raw *raw = new_raw(r, p, d, NO_CHOICE);
    memcpy(raw->mine, r->me, sizeof raw->mine);
    int seeds = raw->mine[p];
    raw->mine[p] = 0;
    int house = r->house_me && p != 4;
    if (!capture) {
        takata(r, p, d, raw, seeds, house, 0);
        return;
    }
    memcpy(raw->theirs, r->opp, sizeof raw->theirs);
    SowResult s = sow(raw->mine, raw->theirs, (p + d) & 15, seeds, d, 1, 0, house, r->house_opp,
                      NO_CHOICE, -1, r->priority);
    if (s.code == ENDED || s.code == WON) {
        raw->code = s.code;
        raw->house_me = s.house_me;
        raw->house_opp = s.house_opp;
        raw->takata = 0;
        raw->priority = s.priority;
        r->count++;
    }
}

/* Bao la Kete D3: of the captures, only those that take the marked pit, if any do. */
static void prioritise(Runner *r)
{
    if (r->position->variant != KETE)
        return;
    int kept = 0;
    for (int i = 0; i < r->count; i++)
        if (r->out[i].priority)
            r->out[kept++] = r->out[i];
    if (kept)
        r->count = kept;
}

static void namua_moves(Runner *r)
{
    const int *me = r->me, *opp = r->opp;
    for (int i = 0; i < 8; i++) {
        if (!me[i] || !opp[7 - i])
            continue;
        if (i < 2) {
            namua_capture(r, i, 1); /* a kimbi has its forced kichwa only */
        } else if (i > 5) {
            namua_capture(r, i, -1);
        } else {
            namua_capture(r, i, 1);
            namua_capture(r, i, -1);
        }
    }
    if (r->count) {
        prioritise(r);
        return;
    }
    if (r->house_me && me[4] >= 6) { /* a functional nyumba */
        for (int i = 0; i < 8; i++)
            if (i != 4 && me[i])
                namua_takata(r, i);
        if (!r->count)
            namua_tax(r);
        return;
    }
    for (int i = 0; i < 8; i++)
        if (me[i] >= 2)
            namua_takata(r, i);
    if (!r->count)
        for (int i = 0; i < 8; i++)
            if (me[i] == 1)
                namua_takata(r, i);
}

static void mtaji_moves(Runner *r)
{
    int found[32][3];
    int n = capture_landings(r->me, r->opp, found);
    for (int k = 0; k < n; k++)
        mtaji_move(r, found[k][0], found[k][1], 1);
    if (r->count) {
        prioritise(r);
        return;
    }
    if (r->position->variant == KETE && r->house_me && r->stop != 4) {
        mtaji_move(r, 4, 1, 0); /* D2: while the kuu is owned, its takata comes first */
        mtaji_move(r, 4, -1, 0);
        if (r->count)
            return;
    }
    for (int p = 0; p < 8; p++) {
        if (r->me[p] >= 2 && p != r->stop) {
            mtaji_move(r, p, 1, 0);
            mtaji_move(r, p, -1, 0);
        }
    }
    if (r->count)
        return;
    for (int p = 8; p < 16; p++) {
        if (r->me[p] >= 2) {
            mtaji_move(r, p, 1, 0);
            mtaji_move(r, p, -1, 0);
        }
    }
}

/* The opponent pit marked after a mtaji takata (takasia), or -1. mine/theirs: the mover's and
 * the opponent's pits after the move. */
static int takasia_target(const int *mine, const int *theirs, int house_theirs)
{
    int found[32][3];
    if (capture_landings(theirs, mine, found))
        return -1;
    int n = capture_landings(mine, theirs, found);
    int target = -1;
    for (int k = 0; k < n; k++) {
        int t = 7 - found[k][2];
        if (target >= 0 && t != target)
            return -1; /* more than one pit threatened */
        target = t;
    }
    if (target < 0)
        return -1;
    if (target == 4 && house_theirs && theirs[4] >= 6)
        return -1;
    int occupied = 0, loaded = 0;
    for (int i = 0; i < 8; i++) {
        occupied += theirs[i] > 0;
        loaded += theirs[i] >= 2;
    }
    if (occupied == 1)
        return -1;
    if (theirs[target] >= 2 && loaded == 1)
        return -1;
    return target;
}

/* The position after a legal candidate. */
static void bao_finish(const Position *p, const Raw *raw, Position *after)
{
    int si = p->side;
    *after = *p;
    int namua = p->reserves[si] > 0;
    if (namua)
        after->reserves[si]--;
    int mark = -1;
    if (raw->code != WON) {
        /* D3: a mark against the mover survives his move, as the marking player's priority */
        if (p->variant == KETE && p->mark >= 0 && (p->mark >> 4) == si)
            mark = p->mark;
        if (raw->takata && !namua && after->reserves[0] == 0 && after->reserves[1] == 0) {
            int target = takasia_target(raw->mine, raw->theirs, raw->house_opp);
            if (target >= 0)
                mark = (1 - si) * 16 + target;
        }
    }
    memcpy(after->pits[si], raw->mine, sizeof raw->mine);
    memcpy(after->pits[1 - si], raw->theirs, sizeof raw->theirs);
    after->houses[si] = raw->house_me;
    after->houses[1 - si] = raw->house_opp;
    after->mark = mark;
    after->side = 1 - si;
    after->ply = p->ply + 1;
}

static void bao_token(const Position *p, const Raw *raw, char *out)
{
    square_name(p->side, raw->pit, out);
    out[2] = raw->d == 1 ? '+' : '-';
    out[3] = raw->choice == STOP ? 's' : raw->choice == SAFARI ? 'c' : '\0';
    out[4] = '\0';
}

static int compare_moves(const void *a, const void *b)
{
    return strcmp(((const Move *)a)->token, ((const Move *)b)->token);
}

static int bao_legal(const Position *p, Move *moves)
{
    int si = p->side;
    const int *me = p->pits[si], *opp = p->pits[1 - si];
    if (!any_front(me) || !any_front(opp))
        return 0; /* bao hamna: the game is over */
    /* Each candidate fills one slot; a namua capture may try three. */
    static Raw raws[MAX_MOVES + 4];
    Runner r = {p, si, me, opp, p->houses[si], p->houses[1 - si], -1, -1, raws, 0};
    if (p->mark >= 0) {
        if ((p->mark >> 4) == si)
            r.stop = p->mark & 15;
        else
            r.priority = p->mark & 15;
    }
    if (p->reserves[si] > 0)
        namua_moves(&r);
    else
        mtaji_moves(&r);
    for (int i = 0; i < r.count; i++) {
        bao_token(p, &raws[i], moves[i].token);
        bao_finish(p, &raws[i], &moves[i].after);
    }
    qsort(moves, (size_t)r.count, sizeof *moves, compare_moves);
    return r.count;
}

/* ------------------------------------------------------------------ Kingulu */

enum { K_ENDED, K_FIRST_LAP, K_NEVER_ENDING };

static const char *const RING_SQUARES[12] = {"a1", "b1", "c1", "d1", "e1", "f1",
                                             "f2", "e2", "d2", "c2", "b2", "a2"};

/* Play the move lifting ring hole `start` for `mover`, in place; returns K_ENDED,
 * K_FIRST_LAP (rule 4) or K_NEVER_ENDING. */
static int kingulu_sow(int *board, int *owners, int *banks, int mover, int start)
{
    int own_lo = 6 * mover;
    int pos = start;
    for (int lap = 1; lap <= MAX_LAPS; lap++) {
        int seeds = board[pos];
        board[pos] = 0;
        int circuits = seeds / 12, rest = seeds % 12;
        if (circuits)
            for (int k = 0; k < 12; k++) {
                if (owners[k])
                    banks[owners[k] - 1] += circuits; /* G-1: reserved holes are sinks */
                else
                    board[k] += circuits;
            }
        int k = pos;
        for (int i = 0; i < rest; i++) {
            k = k < 11 ? k + 1 : 0;
            if (owners[k])
                banks[owners[k] - 1]++;
            else
                board[k]++;
        }
        int last = (pos + seeds) % 12;
        if (owners[last])
            return K_ENDED; /* rule 1 */
        int now = board[last];
        int own = own_lo <= last && last < own_lo + 6;
        if (now == 1) { /* rule 2: the last hole was empty */
            if (own) {
                int facing = 11 - last;
                if (!owners[facing] && board[facing]) {
                    banks[mover] += board[facing] + 1;
                    board[facing] = 0;
                    board[last] = 0;
                }
            }
            return K_ENDED;
        }
        if (!own && now == 4) { /* rule 3: kuweka mtoto */
            owners[last] = mover + 1;
            if (seeds >= 2) {
                int before = last ? last - 1 : 11;
                if (!owners[before]) { /* G-4: a banked seed stays banked */
                    board[before]--;
                    board[last]++;
                }
            }
            return K_ENDED;
        }
        if (own && lap == 1)
            return K_FIRST_LAP; /* rule 4 */
        pos = last; /* rule 5: relay */
    }
    return K_NEVER_ENDING;
}

static int kingulu_legal(const Position *p, Move *moves)
{
    int count = 0;
    int lo = 6 * p->side;
    for (int start = lo; start < lo + 6; start++) {
        if (p->owners[start] || !p->board[start])
            continue;
        Position *after = &moves[count].after;
        *after = *p;
        if (kingulu_sow(after->board, after->owners, after->banks, p->side, start) != K_ENDED)
            continue;
        after->side = 1 - p->side;
        after->ply = p->ply + 1;
        strcpy(moves[count].token, RING_SQUARES[start]);
        count++;
    }
    qsort(moves, (size_t)count, sizeof *moves, compare_moves);
    return count;
}

void kingulu_scores(const Position *p, int scores[2])
{
    scores[0] = p->banks[0];
    scores[1] = p->banks[1];
    for (int k = 0; k < 12; k++) {
        int owner = p->owners[k];
        if (owner == 1 || (owner == 0 && k < 6))
            scores[0] += p->board[k];
        else
            scores[1] += p->board[k];
    }
}

/* ------------------------------------------------------------------ shared */

int legal_moves(const Position *p, Move *moves)
{
    return p->variant == KINGULU ? kingulu_legal(p, moves) : bao_legal(p, moves);
}

static Outcome scored(const Position *p, const char *reason)
{
    Outcome o = {1, -1, reason, {0, 0}, 1, 0};
    kingulu_scores(p, o.scores);
    o.winner = o.scores[0] > o.scores[1] ? 0 : o.scores[1] > o.scores[0] ? 1 : -1;
    return o;
}

Outcome rules_outcome(const Position *p)
{
    Outcome none = {0, -1, NULL, {0, 0}, 0, 0};
    Move moves[MAX_MOVES];
    if (p->variant == KINGULU)
        return kingulu_legal(p, moves) ? none : scored(p, "score");
    int to_move = p->side;
    int empty_mover = !any_front(p->pits[to_move]);
    int empty_other = !any_front(p->pits[1 - to_move]);
    Outcome o = {1, 1 - to_move, "bao_hamna", {0, 0}, 0, 0};
    if (empty_mover && empty_other)
        return o; /* hand-made positions only */
    if (empty_mover) {
        /* the player who just moved won; a win mid-move keeps seeds in his hand */
        int seeds = p->reserves[0] + p->reserves[1];
        for (int i = 0; i < 16; i++)
            seeds += p->pits[0][i] + p->pits[1][i];
        o.seeds_in_hand = seeds < TOTAL_BAO_SEEDS ? TOTAL_BAO_SEEDS - seeds : 0;
        return o;
    }
    if (empty_other) {
        o.winner = to_move;
        return o;
    }
    if (!bao_legal(p, moves)) {
        o.reason = "no_legal_move";
        return o;
    }
    return none;
}

Outcome limit_outcome(const Position *p, const char *reason)
{
    if (p->variant == KINGULU)
        return scored(p, reason);
    Outcome o = {1, -1, reason, {0, 0}, 0, 0};
    return o;
}

/* ------------------------------------------------------------------ notation */

static const char START_BPN[] =
    "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0";
static const char START_KPN[] = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0";

void start_position(int variant, Position *out)
{
    parse_position(variant, variant == KINGULU ? START_KPN : START_BPN, out);
}

/* A non-negative count of at most 9 digits at *s; advances *s. -1 if there is none. */
static long read_count(const char **s)
{
    const char *c = *s;
    long value = 0;
    int digits = 0;
    while (*c >= '0' && *c <= '9') {
        if (++digits > 9)
            return -1;
        value = value * 10 + (*c - '0');
        c++;
    }
    if (!digits)
        return -1;
    *s = c;
    return value;
}

static int expect(const char **s, char c)
{
    if (**s != c)
        return -1;
    (*s)++;
    return 0;
}

static void skip_spaces(const char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
}

static int parse_bpn(const char *s, Position *p)
{
    int rows[4][8];
    for (int r = 0; r < 4; r++) {
        for (int f = 0; f < 8; f++) {
            long n = read_count(&s);
            if (n < 0)
                return -1;
            rows[r][f] = (int)n;
            if (f < 7 && expect(&s, ','))
                return -1;
        }
        if (r < 3 && expect(&s, '/'))
            return -1;
    }
    /* rank 4, 3, 2, 1: North back a4..h4 = 8..15, North front a3..h3 = 7..0, South front
     * a2..h2 = 0..7, South back a1..h1 = 15..8 */
    for (int f = 0; f < 8; f++) {
        p->pits[1][8 + f] = rows[0][f];
        p->pits[1][7 - f] = rows[1][f];
        p->pits[0][f] = rows[2][f];
        p->pits[0][15 - f] = rows[3][f];
    }
    skip_spaces(&s);
    if (*s != 'S' && *s != 'N')
        return -1;
    p->side = *s++ == 'N';
    skip_spaces(&s);
    long rs = read_count(&s);
    if (rs < 0 || expect(&s, ':'))
        return -1;
    long rn = read_count(&s);
    if (rn < 0)
        return -1;
    p->reserves[0] = (int)rs;
    p->reserves[1] = (int)rn;
    skip_spaces(&s);
    if (*s != 'n' && *s != 'm')
        return -1;
    if ((*s == 'n') != (rs + rn > 0))
        return -1; /* the stage must agree with the reserves */
    s++;
    skip_spaces(&s);
    for (int i = 0; i < 2; i++) {
        if (*s != 'H' && *s != '-')
            return -1;
        p->houses[i] = *s++ == 'H';
    }
    skip_spaces(&s);
    if (*s == '-') {
        p->mark = -1;
        s++;
    } else {
        int owner, index;
        if (square_index(s, &owner, &index) || index >= 8)
            return -1;
        p->mark = owner * 16 + index;
        s += 2;
    }
    skip_spaces(&s);
    long ply = read_count(&s);
    if (ply < 0)
        return -1;
    p->ply = ply;
    skip_spaces(&s);
    return *s == '\0' || *s == '\n' || *s == '\r' ? 0 : -1;
}

static int parse_kpn(const char *s, Position *p)
{
    static const int TEXT_ORDER[12] = {11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5};
    for (int i = 0; i < 12; i++) {
        int ring = TEXT_ORDER[i];
        long n = read_count(&s);
        if (n < 0)
            return -1;
        p->board[ring] = (int)n;
        p->owners[ring] = 0;
        if (*s == 's' && ring >= 6) {
            p->owners[ring] = 1;
            s++;
        } else if (*s == 'n' && ring < 6) {
            p->owners[ring] = 2;
            s++;
        }
        if (i == 5 ? expect(&s, '/') : i < 11 ? expect(&s, ',') : 0)
            return -1;
    }
    if (expect(&s, ' ') || (*s != 'S' && *s != 'N'))
        return -1;
    p->side = *s++ == 'N';
    if (expect(&s, ' '))
        return -1;
    long bs = read_count(&s);
    if (bs < 0 || expect(&s, ':'))
        return -1;
    long bn = read_count(&s);
    if (bn < 0 || expect(&s, ' '))
        return -1;
    long ply = read_count(&s);
    if (ply < 0)
        return -1;
    p->banks[0] = (int)bs;
    p->banks[1] = (int)bn;
    p->ply = ply;
    return *s == '\0' || *s == '\n' || *s == '\r' ? 0 : -1;
}

int parse_position(int variant, const char *text, Position *out)
{
    memset(out, 0, sizeof *out);
    out->variant = variant;
    out->mark = -1;
    while (*text == ' ')
        text++;
    return variant == KINGULU ? parse_kpn(text, out) : parse_bpn(text, out);
}

void format_position(const Position *p, char *buf)
{
    char *o = buf;
    if (p->variant == KINGULU) {
        static const int TEXT_ORDER[12] = {11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5};
        for (int i = 0; i < 12; i++) {
            int ring = TEXT_ORDER[i];
            o += sprintf(o, "%d", p->board[ring]);
            if (p->owners[ring])
                *o++ = p->owners[ring] == 1 ? 's' : 'n';
            if (i < 11)
                *o++ = i == 5 ? '/' : ',';
        }
        sprintf(o, " %c %d:%d %ld", p->side ? 'N' : 'S', p->banks[0], p->banks[1], p->ply);
        return;
    }
    for (int r = 0; r < 4; r++) {
        for (int f = 0; f < 8; f++) {
            int n = r == 0   ? p->pits[1][8 + f]
                    : r == 1 ? p->pits[1][7 - f]
                    : r == 2 ? p->pits[0][f]
                             : p->pits[0][15 - f];
            o += sprintf(o, "%d%s", n, f < 7 ? "," : "");
        }
        if (r < 3)
            *o++ = '/';
    }
    char mark[3] = "-";
    if (p->mark >= 0)
        square_name(p->mark >> 4, p->mark & 15, mark);
    sprintf(o, " %c %d:%d %c %c%c %s %ld", p->side ? 'N' : 'S', p->reserves[0], p->reserves[1],
            p->reserves[0] || p->reserves[1] ? 'n' : 'm', p->houses[0] ? 'H' : '-',
            p->houses[1] ? 'H' : '-', mark, p->ply);
}
