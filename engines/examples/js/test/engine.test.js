// The JavaScript starter's own tests: `node --test test/` (node 18's built-in runner).
"use strict";

const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const path = require("node:path");
const test = require("node:test");

const { Engine } = require("../main.js");

// Feed `script` (lines) to a fresh engine; its output lines.
function session(script) {
  let out = "";
  const engine = new Engine((text) => {
    out += text;
  });
  for (const line of script.split("\n")) {
    if (!engine.handle(line)) break;
  }
  return out.split("\n").filter((line) => line !== "");
}

const bestmoves = (lines) =>
  lines.filter((l) => l.startsWith("bestmove ")).map((l) => l.split(" ")[1]);

test("the handshake asks for legal moves and names every variant", () => {
  const lines = session("bep");
  assert.strictEqual(lines[0], "id name js-starter");
  assert.ok(lines.includes("want legalmoves"));
  for (const v of ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"]) {
    assert.ok(lines.includes(`variant ${v}`));
  }
  assert.strictEqual(lines[lines.length - 1], "bepok");
});

test("every go is answered with one of the legal moves", () => {
  let script = "bep\nnewgame bao-la-kete\n";
  for (let i = 0; i < 50; i++) {
    script += "position startpos moves f2+\nlegalmoves b3+ b3- c3+ c3-\nisready\n";
    script += "go stime 1000 ntime 1000 sinc 100 ninc 100\n";
  }
  const lines = session(script);
  const moves = bestmoves(lines);
  assert.strictEqual(moves.length, 50);
  assert.ok(moves.every((m) => ["b3+", "b3-", "c3+", "c3-"].includes(m)));
  assert.ok(moves.some((m) => m !== moves[0]), "random, not constant");
  assert.strictEqual(lines.filter((l) => l === "readyok").length, 50);
});

test("the same seed plays the same moves and another seed others", () => {
  const game = (seed) => {
    let script = `setoption name Seed value ${seed}\nnewgame bao-kingulu\n`;
    for (let i = 0; i < 20; i++) {
      script += "position startpos\nlegalmoves a1 b1 c1 d1 e1 f1\ngo movetime 10\n";
    }
    return bestmoves(session(script));
  };
  assert.deepStrictEqual(game(7), game(7));
  assert.notDeepStrictEqual(game(7), game(8));
});

test("a position without its legalmoves line is answered none, not with old moves", () => {
  const lines = session("position startpos\nlegalmoves c1\nposition startpos moves c1\ngo movetime 5");
  assert.deepStrictEqual(bestmoves(lines), ["none"]);
});

test("the program speaks BEP on stdin and stdout and exits 0 at quit", () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, "..", "main.js")], {
    input: "hello\nisready\nposition startpos\nlegalmoves c1 d1\ngo movetime 50\nquit\nisready\n",
    encoding: "utf8",
    timeout: 10000,
  });
  assert.strictEqual(run.status, 0);
  assert.match(run.stdout, /^readyok\nbestmove [cd]1\n$/);
});
