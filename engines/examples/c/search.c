/* Negamax alpha-beta with iterative deepening. Children are ordered by their static
 * evaluation (every legal move already carries the position after it), the best move of the
 * previous iteration first. Repetitions are not detected; the ply cap is. */
#define _POSIX_C_SOURCE 200809L
#include "search.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_DEPTH 64

long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static long nodes;
static long deadline;
static int aborted;

/* Material of the side to move minus the opponent's, in centiseeds. */
static int evaluate(const Position *p)
{
    int me = p->side, mine = 0, theirs = 0;
    if (p->variant == KINGULU) {
        int scores[2];
        kingulu_scores(p, scores);
        mine = scores[me];
        theirs = scores[1 - me];
    } else {
        mine = p->reserves[me];
        theirs = p->reserves[1 - me];
        for (int i = 0; i < 16; i++) {
            mine += p->pits[me][i];
            theirs += p->pits[1 - me][i];
        }
    }
    return 100 * (mine - theirs);
}

/* The score of a finished game for the side to move of `p`, or 0 with *over = 0. */
static int terminal(const Position *p, int n_moves, int height, int *over)
{
    Outcome o;
    *over = 1;
    if (n_moves == 0)
        o = rules_outcome(p);
    else if (p->ply >= PLY_CAP[p->variant])
        o = limit_outcome(p, "ply_cap");
    else {
        *over = 0;
        return 0;
    }
    if (!o.over) { /* cannot happen: no legal move always ends the game */
        *over = 0;
        return 0;
    }
    if (o.winner < 0)
        return 0;
    return o.winner == p->side ? WIN_SCORE - height : -WIN_SCORE + height;
}

/* Sort moves by the opponent's static score after them, lowest first (insertion sort). */
static void order(Move *moves, int n, int *keys)
{
    for (int i = 0; i < n; i++)
        keys[i] = evaluate(&moves[i].after);
    for (int i = 1; i < n; i++) {
        Move m = moves[i];
        int k = keys[i], j = i - 1;
        while (j >= 0 && keys[j] > k) {
            moves[j + 1] = moves[j];
            keys[j + 1] = keys[j];
            j--;
        }
        moves[j + 1] = m;
        keys[j + 1] = k;
    }
}

static int negamax(const Position *p, int depth, int alpha, int beta, int height)
{
    if ((++nodes & 255) == 0 && now_ms() >= deadline)
        aborted = 1;
    if (aborted)
        return 0;
    Move moves[MAX_MOVES];
    int keys[MAX_MOVES];
    int n = legal_moves(p, moves);
    int over;
    int score = terminal(p, n, height, &over);
    if (over)
        return score;
    if (depth == 0)
        return evaluate(p);
    order(moves, n, keys);
    int best = -WIN_SCORE - 1;
    for (int i = 0; i < n; i++) {
        int value = -negamax(&moves[i].after, depth - 1, -beta, -alpha, height + 1);
        if (aborted)
            return 0;
        if (value > best)
            best = value;
        if (value > alpha)
            alpha = value;
        if (alpha >= beta)
            break;
    }
    return best;
}

SearchResult search(const Position *p, long budget_ms, int max_depth)
{
    SearchResult result = {"", 0, 0, 0};
    long started = now_ms();
    Move moves[MAX_MOVES];
    int keys[MAX_MOVES];
    int n = legal_moves(p, moves);
    if (n == 0)
        return result;
    order(moves, n, keys);
    strcpy(result.best, moves[0].token);
    nodes = 0;
    aborted = 0;
    deadline = started + budget_ms;
    if (max_depth <= 0 || max_depth > MAX_DEPTH)
        max_depth = MAX_DEPTH;
    for (int depth = 1; depth <= max_depth; depth++) {
        int alpha = -WIN_SCORE - 1, best_index = 0;
        for (int i = 0; i < n; i++) {
            int value = -negamax(&moves[i].after, depth - 1, -WIN_SCORE - 1, -alpha, 1);
            if (aborted)
                break;
            if (value > alpha) {
                alpha = value;
                best_index = i;
            }
        }
        if (aborted)
            break; /* keep the last completed iteration's move */
        Move chosen = moves[best_index]; /* search it first next time */
        memmove(&moves[1], &moves[0], (size_t)best_index * sizeof *moves);
        moves[0] = chosen;
        strcpy(result.best, chosen.token);
        result.score = alpha;
        result.depth = depth;
        result.nodes = nodes;
        printf("info depth %d score %d nodes %ld time %ld pv %s\n", depth, alpha, nodes,
               now_ms() - started, chosen.token);
        if (alpha >= WIN_SCORE - MAX_DEPTH || alpha <= -WIN_SCORE + MAX_DEPTH)
            break; /* the game is decided */
        if (n == 1 && depth >= 2)
            break; /* a forced move */
    }
    result.nodes = nodes;
    return result;
}
