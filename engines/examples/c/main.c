/* A BEP engine (docs/protocol.md) for the three variants: reads commands on stdin, answers
 * on stdout, one line each. Thinks only inside `go`, so `isready` and `stop` need no thread:
 * the referee sends `position`, `isready` and `go` together and `readyok` is written before
 * the search starts. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "search.h"

#define LINE_SIZE (1 << 20)

static int variant = KETE;
static Position current;
static int have_position;
static int depth_option;

static void handshake(void)
{
    printf("id name c-starter\n");
    printf("id author Bao Arena\n");
    printf("option name Depth type spin default 0\n");
    for (int v = 0; v < VARIANT_COUNT; v++)
        printf("variant %s\n", VARIANT_IDS[v]);
    printf("bepok\n");
}

/* Play the tokens of `moves` (space-separated) on `p`; an unknown or illegal token stops. */
static void play_moves(Position *p, char *moves)
{
    Move legal[MAX_MOVES];
    for (char *token = strtok(moves, " \r\n"); token; token = strtok(NULL, " \r\n")) {
        int n = legal_moves(p, legal), i = 0;
        while (i < n && strcmp(legal[i].token, token) != 0)
            i++;
        if (i == n) {
            printf("info string illegal move %s ignored\n", token);
            return;
        }
        *p = legal[i].after;
    }
}

/* position startpos [moves ...] | position text <BPN or KPN> [moves ...] */
static void set_position(char *args)
{
    char *moves = strstr(args, " moves");
    if (moves) {
        *moves = '\0';
        moves += strlen(" moves");
    }
    if (strncmp(args, "startpos", 8) == 0) {
        start_position(variant, &current);
    } else if (strncmp(args, "text ", 5) == 0) {
        if (parse_position(variant, args + 5, &current) != 0) {
            printf("info string cannot read the position %s\n", args + 5);
            have_position = 0;
            return;
        }
    } else {
        have_position = 0;
        return;
    }
    have_position = 1;
    if (moves)
        play_moves(&current, moves);
}

/* The value of `key` in a `go` line (e.g. " stime "), or -1. */
static long go_value(const char *line, const char *key)
{
    const char *at = strstr(line, key);
    return at ? atol(at + strlen(key)) : -1;
}

static long budget(const char *line)
{
    long movetime = go_value(line, " movetime ");
    if (movetime >= 0) {
        long ms = movetime * 95 / 100 - 5;
        return ms < 1 ? 1 : ms;
    }
    int south = current.side == 0;
    long mine = go_value(line, south ? " stime " : " ntime ");
    long inc = go_value(line, south ? " sinc " : " ninc ");
    if (mine < 0)
        return 1000;
    if (inc < 0)
        inc = 0;
    long ms = mine / 30 + inc * 9 / 10;
    if (ms > mine / 2)
        ms = mine / 2;
    ms -= 15;
    return ms < 1 ? 1 : ms;
}

static void go(const char *line)
{
    if (!have_position) {
        printf("info string no position\n");
        return;
    }
    SearchResult r = search(&current, budget(line), depth_option);
    printf("bestmove %s\n", r.best[0] ? r.best : "none");
}

int main(void)
{
    static char line[LINE_SIZE];
    setvbuf(stdout, NULL, _IOLBF, 0);
    start_position(variant, &current);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "bep") == 0) {
            handshake();
        } else if (strcmp(line, "isready") == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "newgame ", 8) == 0) {
            for (int v = 0; v < VARIANT_COUNT; v++)
                if (strcmp(line + 8, VARIANT_IDS[v]) == 0)
                    variant = v;
            have_position = 0;
        } else if (strncmp(line, "position ", 9) == 0) {
            set_position(line + 9);
        } else if (strncmp(line, "go", 2) == 0 && (line[2] == ' ' || line[2] == '\0')) {
            go(line);
        } else if (strncmp(line, "setoption name Depth value ", 27) == 0) {
            depth_option = atoi(line + 27);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
        /* stop: the search has already answered; unknown commands are ignored */
    }
    return 0;
}
