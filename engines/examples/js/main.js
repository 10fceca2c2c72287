#!/usr/bin/env node
// A Bao Arena engine in plain JavaScript (node 18, no packages) that knows no rules of Bao.
//
// It speaks BEP, the Bao Engine Protocol (docs/protocol.md in the Bao Arena repository), on
// stdin/stdout. In the handshake it writes `want legalmoves`, so the referee sends the legal
// moves of every position it must move in (`legalmoves <t1> <t2> ...`, right after the
// `position` line), and it answers each `go` with one of them, drawn by its own seeded random
// number generator (mulberry32). Replace `choose` with something cleverer: the position text
// and the move list are all it needs.
"use strict";

const NAME = "js-starter";
const AUTHOR = "Bao Arena";
const VARIANTS = ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"];

// mulberry32 (Tommy Ettinger): a tiny 32-bit generator, the same on every machine for a seed.
function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

class Engine {
  // `send(text)` writes one or more whole lines (each ending in "\n").
  constructor(send) {
    this.send = send;
    this.random = mulberry32(0);
    this.position = ""; // the last `position` line without "position ": the game so far
    this.legal = []; // the legal moves of that position, from the referee's `legalmoves`
  }

  // The move to play: any of `this.legal` (never empty here). `this.position` is there for a
  // smarter engine (`startpos moves ...` or `text <BPN or KPN> moves ...`).
  choose() {
    return this.legal[Math.floor(this.random() * this.legal.length)];
  }

  // Execute one command line; false when the engine should exit (`quit`).
  handle(line) {
    const words = line.trim().split(/\s+/);
    switch (words[0]) {
      case "bep":
        this.send(
          `id name ${NAME}\nid author ${AUTHOR}\n` +
            "option name Seed type spin default 0\n" +
            "want legalmoves\n" +
            VARIANTS.map((v) => `variant ${v}\n`).join("") +
            "bepok\n",
        );
        break;
      case "isready":
        this.send("readyok\n");
        break;
      case "setoption":
        this.setOption(line.trim());
        break;
      case "newgame":
        this.position = "";
        this.legal = [];
        break;
      case "position":
        this.position = line.trim().slice("position".length).trim();
        this.legal = []; // a new position: its moves come next
        break;
      case "legalmoves":
        this.legal = words.slice(1);
        break;
      case "go":
        if (this.legal.length === 0) {
          this.send("info string no legalmoves line came with this position\nbestmove none\n");
        } else {
          this.send(`bestmove ${this.choose()}\n`);
        }
        break;
      case "quit":
        return false;
      default:
      // `stop` needs nothing: every go is answered at once. Anything else is ignored, as the
      // protocol asks.
    }
    return true;
  }

  // `setoption name <N> value <V>`: the only option is `Seed` (the referee sends one per game,
  // so each game differs and every game can be replayed).
  setOption(line) {
    const match = /^setoption name (.*?)(?: value (.*))?$/.exec(line);
    if (match && match[1].trim().toLowerCase() === "seed") {
      const seed = Number.parseInt(match[2] || "", 10);
      if (Number.isFinite(seed)) {
        this.random = mulberry32(seed);
      }
    }
  }
}

// Serve BEP on stdin/stdout until `quit` or end of input. Writes to a pipe are synchronous in
// node on Linux, so every line is sent when `write` returns.
function main() {
  const readline = require("node:readline");
  const engine = new Engine((text) => process.stdout.write(text));
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on("line", (line) => {
    if (!engine.handle(line)) {
      process.exit(0);
    }
  });
  input.on("close", () => process.exit(0)); // end of input: the referee closed our stdin
  process.stdout.on("error", () => process.exit(0)); // the referee is gone
}

if (require.main === module) {
  main();
}

module.exports = { Engine, mulberry32 };
