//! A Bao Arena engine in plain Rust that knows no rules of Bao.
//!
//! It speaks BEP, the Bao Engine Protocol (docs/protocol.md in the Bao Arena repository), on
//! stdin/stdout. In the handshake it writes `want legalmoves`, so the referee sends the legal
//! moves of every position it must move in (`legalmoves <t1> <t2> ...`, right after the
//! `position` line), and it answers each `go` with one of them, drawn by its own seeded random
//! number generator (SplitMix64). Replace `choose` with something cleverer: the position text
//! and the move list are all it needs.
//!
//! Builds with Rust 1.63 (Debian bookworm) and no crates: `cargo build --release --offline`.

use std::io::{self, BufRead, Write};

const NAME: &str = "rust-starter";
const AUTHOR: &str = "Bao Arena";
const VARIANTS: [&str; 3] = ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"];

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator, good enough to pick moves, and
/// the same on every machine for the same seed.
struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// What the engine remembers between commands.
struct Engine {
    rng: SplitMix64,
    /// The `position` line last received (without `position `): the game so far, for a
    /// smarter `choose` (this one does not read it).
    #[allow(dead_code)]
    position: String,
    /// The legal moves of `position`, from the referee's `legalmoves` line.
    legal: Vec<String>,
}

impl Engine {
    fn new() -> Engine {
        Engine {
            rng: SplitMix64::new(0),
            position: String::new(),
            legal: Vec::new(),
        }
    }

    /// The move to play: any of `legal` (never empty when called). The position is there for a
    /// smarter engine (`startpos moves ...` or `text <BPN or KPN> moves ...`).
    fn choose(&mut self) -> String {
        let i = self.rng.below(self.legal.len());
        self.legal[i].clone()
    }

    /// Execute one command line, writing the replies to `out`; false when the engine should
    /// exit (`quit`).
    fn handle(&mut self, line: &str, out: &mut dyn Write) -> io::Result<bool> {
        let mut words = line.split_whitespace();
        let command = match words.next() {
            Some(word) => word,
            None => return Ok(true),
        };
        match command {
            "bep" => {
                let mut reply = format!("id name {}\nid author {}\n", NAME, AUTHOR);
                reply.push_str("option name Seed type spin default 0\n");
                reply.push_str("want legalmoves\n");
                for variant in VARIANTS.iter() {
                    reply.push_str(&format!("variant {}\n", variant));
                }
                reply.push_str("bepok\n");
                send(out, &reply)?;
            }
            "isready" => send(out, "readyok\n")?,
            "setoption" => self.set_option(line),
            "newgame" => {
                self.position.clear();
                self.legal.clear();
            }
            "position" => {
                self.position = line.trim()["position".len()..].trim().to_string();
                self.legal.clear(); // a new position: its moves come next
            }
            "legalmoves" => self.legal = words.map(|w| w.to_string()).collect(),
            "go" => {
                if self.legal.is_empty() {
                    send(
                        out,
                        "info string no legalmoves line came with this position\n",
                    )?;
                    send(out, "bestmove none\n")?;
                } else {
                    let best = self.choose();
                    send(out, &format!("bestmove {}\n", best))?;
                }
            }
            "quit" => return Ok(false),
            // `stop` needs nothing: every go is answered at once. Anything else is ignored,
            // as the protocol asks.
            _ => {}
        }
        Ok(true)
    }

    /// `setoption name <N> value <V>`: the only option is `Seed` (the referee sends one per
    /// game, so each game differs and every game can be replayed).
    fn set_option(&mut self, line: &str) {
        let rest = match line.trim().strip_prefix("setoption name ") {
            Some(rest) => rest,
            None => return,
        };
        let (name, value) = match rest.find(" value ") {
            Some(at) => (&rest[..at], rest[at + " value ".len()..].trim()),
            None => (rest, ""),
        };
        if name.trim().eq_ignore_ascii_case("seed") {
            if let Ok(seed) = value.parse::<i64>() {
                self.rng = SplitMix64::new(seed as u64);
            }
        }
    }
}

/// Write and flush: a reply still in a buffer has not been sent, and the clock keeps running.
fn send(out: &mut dyn Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Serve BEP from `input` to `out` until `quit` or end of input.
fn serve(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<()> {
    let mut engine = Engine::new();
    let mut raw = Vec::new();
    loop {
        raw.clear();
        if input.read_until(b'\n', &mut raw)? == 0 {
            return Ok(()); // end of input: the referee closed our stdin
        }
        // A stray non-UTF-8 byte must not end the engine: it becomes an unknown command.
        let line = String::from_utf8_lossy(&raw);
        if !engine.handle(&line, out)? {
            return Ok(());
        }
    }
}

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut input = stdin.lock();
    let mut out = stdout.lock();
    // A closed pipe means the referee is gone: nothing is left to do but exit.
    let _ = serve(&mut input, &mut out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(script: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve(&mut script.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| l.to_string())
            .collect()
    }

    fn bestmoves(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("bestmove ").map(|m| m.to_string()))
            .collect()
    }

    #[test]
    fn the_handshake_asks_for_legal_moves_and_names_every_variant() {
        let lines = session("bep\n");
        assert_eq!(lines[0], "id name rust-starter");
        assert!(lines.contains(&"want legalmoves".to_string()));
        for variant in VARIANTS.iter() {
            assert!(lines.contains(&format!("variant {}", variant)));
        }
        assert_eq!(lines.last().unwrap(), "bepok");
    }

    #[test]
    fn every_go_is_answered_with_one_of_the_legal_moves() {
        let mut script = String::from("bep\nnewgame bao-la-kete\n");
        for _ in 0..50 {
            script.push_str("position startpos moves f2+\nlegalmoves b3+ b3- c3+ c3-\n");
            script.push_str("isready\ngo stime 1000 ntime 1000 sinc 100 ninc 100\n");
        }
        let lines = session(&script);
        let moves = bestmoves(&lines);
        assert_eq!(moves.len(), 50);
        assert!(moves
            .iter()
            .all(|m| ["b3+", "b3-", "c3+", "c3-"].contains(&m.as_str())));
        // Random, not constant: 50 draws from four moves hit more than one.
        assert!(moves.iter().any(|m| m != &moves[0]));
        assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 50);
    }

    #[test]
    fn the_same_seed_plays_the_same_moves_and_another_seed_others() {
        let game = |seed: &str| {
            let mut script = format!("setoption name Seed value {}\nnewgame bao-kingulu\n", seed);
            for _ in 0..20 {
                script
                    .push_str("position startpos\nlegalmoves a1 b1 c1 d1 e1 f1\ngo movetime 10\n");
            }
            bestmoves(&session(&script))
        };
        assert_eq!(game("7"), game("7"));
        assert_ne!(game("7"), game("8"));
    }

    #[test]
    fn a_position_without_its_legalmoves_line_is_answered_none_not_with_old_moves() {
        let lines = session(
            "position startpos\nlegalmoves c1\nposition startpos moves c1\ngo movetime 5\n",
        );
        assert_eq!(bestmoves(&lines), vec!["none".to_string()]);
    }

    #[test]
    fn unknown_commands_and_stray_bytes_are_ignored_and_quit_ends_the_session() {
        let mut out = Vec::new();
        let script: &[u8] = b"hello\n\xff\xfe\nisready\nquit\nisready\n";
        serve(&mut &script[..], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "readyok\n");
    }
}
