/* Compares this move generator with a conformance file (docs/rules/conformance.md):
 *
 *     gzip -dc bao-la-kete.jsonl.gz | ./check-rules bao-la-kete
 *
 * For every line: the position reads and prints back to the same text, the legal moves are
 * those listed, the move played leads to `next`, and the outcome (rules endings, and the
 * third repetition and ply cap counted over the game the line belongs to) is the one given.
 * Stops at the first mismatch (exit status 1), else prints the number of lines (status 0).
 *
 *     ./check-rules --perft perft.json [MAX_DEPTH]
 *
 * compares the perft counts of every position of the table (to MAX_DEPTH plies, default all).
 * The JSON reader knows only the shape of these files (no escapes in strings, one perft row
 * a line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define LINE_SIZE (1 << 16)
#define MAX_GAME (1 << 14)

static long line_no;

static void fail(const char *what, const char *want, const char *got)
{
    printf("line %ld: %s differs\n  file: %s\n  ours: %s\n", line_no, what, want, got);
    exit(1);
}

/* The raw JSON value of `key` in `line` (a pointer just after the colon), or NULL. */
static const char *value_of(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(line, pattern);
    if (!at)
        return NULL;
    at += strlen(pattern);
    while (*at == ' ')
        at++;
    return at;
}

/* Copy the JSON string at `v` into out (size n); returns 0, or -1 if it is not a string. */
static int read_string(const char *v, char *out, size_t n)
{
    if (!v || *v != '"')
        return -1;
    const char *end = strchr(v + 1, '"');
    if (!end || (size_t)(end - v - 1) >= n)
        return -1;
    memcpy(out, v + 1, (size_t)(end - v - 1));
    out[end - v - 1] = '\0';
    return 0;
}

/* The `legal` array as one space-separated string. */
static int read_tokens(const char *v, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    if (!v || *v++ != '[')
        return -1;
    while (*v == '"') {
        const char *end = strchr(v + 1, '"');
        if (!end || used + (size_t)(end - v) + 1 >= n)
            return -1;
        if (used)
            out[used++] = ' ';
        memcpy(out + used, v + 1, (size_t)(end - v - 1));
        used += (size_t)(end - v - 1);
        out[used] = '\0';
        v = end + 1;
        if (*v == ',')
            v++;
    }
    return *v == ']' ? 0 : -1;
}

/* The outcome in the form describe() writes, from the JSON object (or "null"). */
static void read_outcome(const char *v, char *out, size_t n)
{
    char winner[8] = "-", reason[32] = "?";
    if (!v || strncmp(v, "null", 4) == 0) {
        snprintf(out, n, "none");
        return;
    }
    const char *w = value_of(v, "winner");
    if (w && *w == '"')
        read_string(w, winner, sizeof winner);
    read_string(value_of(v, "reason"), reason, sizeof reason);
    const char *s = value_of(v, "scores");
    char scores[32] = "-";
    if (s && *s == '[') {
        int a = 0, b = 0;
        sscanf(s, "[%d,%d]", &a, &b);
        snprintf(scores, sizeof scores, "%d-%d", a, b);
    }
    const char *h = value_of(v, "seeds_in_hand");
    snprintf(out, n, "%s %s scores=%s hand=%d", winner, reason, scores, h ? atoi(h) : 0);
}

static void describe(const Outcome *o, char *out, size_t n)
{
    if (!o->over) {
        snprintf(out, n, "none");
        return;
    }
    char scores[32] = "-";
    if (o->has_scores)
        snprintf(scores, sizeof scores, "%d-%d", o->scores[0], o->scores[1]);
    snprintf(out, n, "%s %s scores=%s hand=%d", o->winner < 0 ? "-" : o->winner ? "N" : "S",
             o->reason, scores, o->seeds_in_hand);
}

/* The position text without its last field (the ply): the repetition key. */
static void key_of(const char *text, char *out, size_t n)
{
    snprintf(out, n, "%s", text);
    char *space = strrchr(out, ' ');
    if (space)
        *space = '\0';
}

static void perft(const Position *p, int level, int depth, long *counts)
{
    Move moves[MAX_MOVES];
    int n = legal_moves(p, moves);
    counts[level] += n;
    if (level + 1 < depth)
        for (int i = 0; i < n; i++)
            perft(&moves[i].after, level + 1, depth, counts);
}

/* Lines `  "<variant id>": [` start a variant, lines with "position" and "counts" are rows. */
static int check_perft(const char *path, int max_depth)
{
    static char line[LINE_SIZE], text[512];
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    int variant = -1, rows = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        for (int v = 0; v < VARIANT_COUNT; v++) {
            char head[64];
            snprintf(head, sizeof head, "\"%s\": [", VARIANT_IDS[v]);
            if (strstr(line, head))
                variant = v;
        }
        const char *counts = value_of(line, "counts");
        if (!counts || variant < 0 || read_string(value_of(line, "position"), text, sizeof text))
            continue;
        long want[32], got[32] = {0};
        int depth = 0;
        for (const char *c = strchr(counts, '[') + 1; depth < 32 && *c && *c != ']'; depth++) {
            want[depth] = strtol(c, (char **)&c, 10);
            while (*c == ',' || *c == ' ')
                c++;
        }
        if (max_depth > 0 && depth > max_depth)
            depth = max_depth;
        Position p;
        if (parse_position(variant, text, &p))
            fail("perft position (cannot parse)", text, "-");
        perft(&p, 0, depth, got);
        for (int d = 0; d < depth; d++) {
            if (got[d] != want[d]) {
                char a[32], b[32];
                snprintf(a, sizeof a, "%ld at depth %d", want[d], d + 1);
                snprintf(b, sizeof b, "%ld", got[d]);
                fail(text, a, b);
            }
        }
        rows++;
    }
    fclose(f);
    printf("perft: %d positions ok\n", rows);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--perft") == 0)
        return check_perft(argv[2], argc > 3 ? atoi(argv[3]) : 0);
    int variant = -1;
    for (int v = 0; argc == 2 && v < VARIANT_COUNT; v++)
        if (strcmp(argv[1], VARIANT_IDS[v]) == 0)
            variant = v;
    if (variant < 0) {
        fprintf(stderr, "usage: gzip -dc FILE.jsonl.gz | %s bao-la-kete|bao-la-kiswahili|bao-kingulu\n",
                argv[0]);
        return 2;
    }
    static char line[LINE_SIZE], text[512], ours[LINE_SIZE], want[LINE_SIZE], token[16];
    static char history[MAX_GAME][512];
    int game_length = 0;
    Move moves[MAX_MOVES];
    while (fgets(line, sizeof line, stdin)) {
        line_no++;
        if (read_string(value_of(line, "position"), text, sizeof text))
            fail("position field", "a string", "none");
        Position p;
        if (parse_position(variant, text, &p))
            fail("position (cannot parse)", text, "-");
        format_position(&p, ours);
        if (strcmp(ours, text) != 0)
            fail("position text", text, ours);
        /* legal moves */
        int n = legal_moves(&p, moves);
        ours[0] = '\0';
        for (int i = 0; i < n; i++) {
            if (i)
                strcat(ours, " ");
            strcat(ours, moves[i].token);
        }
        if (read_tokens(value_of(line, "legal"), want, sizeof want))
            fail("legal field", "an array of strings", "-");
        if (strcmp(ours, want) != 0)
            fail("legal moves", want, ours);
        /* the game-level outcome: rules first, then the third repetition, then the ply cap */
        key_of(text, history[game_length], sizeof history[0]);
        int seen = 0;
        for (int i = 0; i <= game_length; i++)
            seen += strcmp(history[i], history[game_length]) == 0;
        if (game_length < MAX_GAME - 1)
            game_length++;
        Outcome o = rules_outcome(&p);
        if (!o.over && seen >= 3)
            o = limit_outcome(&p, "repetition");
        if (!o.over && p.ply >= PLY_CAP[variant])
            o = limit_outcome(&p, "ply_cap");
        describe(&o, ours, sizeof ours);
        read_outcome(value_of(line, "outcome"), want, sizeof want);
        if (strcmp(ours, want) != 0)
            fail("outcome", want, ours);
        if (o.over) {
            game_length = 0; /* the next line starts a new game */
            continue;
        }
        /* the move played and the position after it */
        if (read_string(value_of(line, "move"), token, sizeof token))
            fail("move field", "a string", "none");
        int i = 0;
        while (i < n && strcmp(moves[i].token, token) != 0)
            i++;
        if (i == n)
            fail("move (not legal here)", token, "-");
        format_position(&moves[i].after, ours);
        if (read_string(value_of(line, "next"), want, sizeof want))
            fail("next field", "a string", "none");
        if (strcmp(ours, want) != 0)
            fail("next position", want, ours);
    }
    printf("%s: %ld lines ok\n", VARIANT_IDS[variant], line_no);
    return 0;
}
