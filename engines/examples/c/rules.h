/* The rules of Bao la Kete, Bao la Kiswahili and Bao Kingulu: positions, their text forms
 * (BPN, KPN), legal moves and the position after a move, and the rules endings.
 *
 * A port of arena/rules (bao_sowing.py, bao_moves.py, bao.py, kingulu.py); the rules are
 * described in docs/rules/. Checked against docs/rules/conformance/ by `make check`.
 */
#ifndef BAO_RULES_H
#define BAO_RULES_H

enum variant { KETE, KISWAHILI, KINGULU, VARIANT_COUNT };

/* Variant ids as the protocol names them ("bao-la-kete", ...), indexed by enum variant. */
extern const char *const VARIANT_IDS[VARIANT_COUNT];
/* The ply cap of each variant (a game reaching it is a draw, or scored in Kingulu). */
extern const long PLY_CAP[VARIANT_COUNT];

/* One position of any variant. Bao fields: pits[owner][relative index] (0..7 front row from
 * the owner's left, 8..15 back row from his right), reserves, houses (nyumba owned), mark
 * (-1, or owner * 16 + index). Kingulu fields: board[ring] (a1..f1 = 0..5, f2..a2 = 6..11),
 * owners[ring] (0 free, 1 reserved by South, 2 by North), banks. side: 0 South, 1 North. */
typedef struct {
    int variant;
    int side;
    long ply;
    int pits[2][16];
    int reserves[2];
    int houses[2];
    int mark;
    int board[12];
    int owners[12];
    int banks[2];
} Position;

#define MAX_MOVES 64
#define TOKEN_SIZE 8

/* A legal move: its token and the position after it. */
typedef struct {
    char token[TOKEN_SIZE];
    Position after;
} Move;

/* The rules result of a position. */
typedef struct {
    int over;         /* 0: the game goes on */
    int winner;       /* 0 South, 1 North, -1 draw */
    const char *reason; /* "bao_hamna", "no_legal_move", "score", "repetition", "ply_cap" */
    int scores[2];    /* Kingulu only */
    int has_scores;
    int seeds_in_hand;
} Outcome;

/* Parse BPN (Bao) or KPN (Kingulu) text; returns 0 on success, -1 on bad text. */
int parse_position(int variant, const char *text, Position *out);
/* Write the canonical text of a position into buf (at least 256 bytes). */
void format_position(const Position *p, char *buf);
/* The start position of a variant. */
void start_position(int variant, Position *out);

/* All legal moves, sorted by token (ASCII); returns their number (0: the game is over). */
int legal_moves(const Position *p, Move *moves);
/* The rules outcome of a position (bao_hamna, no_legal_move, score), or over = 0. */
Outcome rules_outcome(const Position *p);
/* The result when repetition or the ply cap ends the game: a draw, or scored (Kingulu). */
Outcome limit_outcome(const Position *p, const char *reason);
/* Kingulu scores: bank + own free holes + holes reserved in the opponent's row. */
void kingulu_scores(const Position *p, int scores[2]);

#endif
