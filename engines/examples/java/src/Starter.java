import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A Bao Arena engine in Java that knows no rules: it asks the referee for the legal moves of
 * every position it must move in ({@code want legalmoves}, docs/protocol.md) and plays one of
 * them. It plays all three variants. Replace {@link #choose} with a search of your own.
 *
 * <p>Protocol (BEP): {@code bep} is answered with {@code id name}, {@code id author}, the
 * {@code Seed} option, one {@code variant} line per game, {@code want legalmoves}, then {@code bepok}; {@code isready}
 * with {@code readyok}; {@code go} with {@code bestmove <token>}; {@code quit} and the end of
 * input end the program. Every line written is flushed at once (the referee's clock runs
 * until it reads the line).
 */
public final class Starter {
    /** The games this engine announces, as variant ids. */
    static final List<String> VARIANTS =
            List.of("bao-la-kete", "bao-la-kiswahili", "bao-kingulu");

    private final PrintStream out;
    private Random random;
    private List<String> legal = List.of();
    private String variant = "";

    Starter(PrintStream out, long seed) {
        this.out = out;
        this.random = new Random(seed);
    }

    public static void main(String[] args) throws IOException {
        // autoflush on println: each reply leaves at once.
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Starter engine = new Starter(out, System.nanoTime());
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (!engine.handle(line)) {
                break;
            }
        }
    }

    /** Answers one command line; false once the engine must exit ({@code quit}). */
    boolean handle(String line) {
        String[] words = line.trim().split(" +");
        switch (words[0]) {
            case "bep" -> {
                send("id name java-starter");
                send("id author Bao Arena examples");
                // The referee sends a per-game Seed derived from the match seed: replayable.
                send("option name Seed type spin default 0");
                for (String v : VARIANTS) {
                    send("variant " + v);
                }
                send("want legalmoves");
                send("bepok");
            }
            case "newgame" -> variant = words.length > 1 ? words[1] : "";
            // A new position: its legal moves follow on the next line.
            case "position" -> legal = List.of();
            case "legalmoves" -> legal = Arrays.asList(words).subList(1, words.length);
            case "setoption" -> setOption(line);
            case "isready" -> send("readyok");
            case "go" -> {
                if (legal.isEmpty()) {
                    send("info string no legalmoves line came with this position");
                } else {
                    send("bestmove " + choose(new ArrayList<>(legal)));
                }
            }
            case "quit" -> {
                return false;
            }
            default -> {
                // stop (this engine answers go at once) and unknown commands.
            }
        }
        return true;
    }

    /** {@code setoption name <N> value <V>}: the only option is {@code Seed} (an integer). */
    private void setOption(String line) {
        int name = line.indexOf(" name ");
        int value = line.indexOf(" value ");
        if (name < 0 || value < name) {
            return;
        }
        if (line.substring(name + 6, value).trim().equalsIgnoreCase("Seed")) {
            try {
                random = new Random(Long.parseLong(line.substring(value + 7).trim()));
            } catch (NumberFormatException ignored) {
                // not a number: keep the generator as it is
            }
        }
    }

    /** The move to play, one of {@code legal} (never empty). Your search goes here. */
    String choose(List<String> legal) {
        return legal.get(random.nextInt(legal.size()));
    }

    /** The variant of the current game ("" before the first newgame). */
    String variant() {
        return variant;
    }

    private void send(String line) {
        out.println(line);
    }
}
