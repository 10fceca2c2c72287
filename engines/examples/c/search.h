/* Alpha-beta search with iterative deepening and a material evaluation. */
#ifndef BAO_SEARCH_H
#define BAO_SEARCH_H

#include "rules.h"

/* A won game, in centiseeds (100 = one seed), minus the plies it takes. */
#define WIN_SCORE 100000

typedef struct {
    char best[TOKEN_SIZE]; /* the move to play ("" when there is no legal move) */
    int score;             /* from the mover's side, centiseeds */
    int depth;             /* the deepest completed iteration */
    long nodes;
} SearchResult;

/* Search `p` for at most `budget_ms` milliseconds (and to `max_depth` plies if it is > 0),
 * writing one `info` line per completed depth to stdout. */
SearchResult search(const Position *p, long budget_ms, int max_depth);

/* Milliseconds of a monotonic clock. */
long now_ms(void);

#endif
