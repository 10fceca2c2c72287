import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code make check}: the starter against scripted referee lines, without a test library.
 * Exits 1 on the first failure, naming it.
 */
public final class StarterTest {
    private static int checks;

    public static void main(String[] args) {
        itAnswersTheHandshakeAskingForLegalMoves();
        itPlaysOnlyTheLegalMovesItWasSent();
        itAnswersIsreadyAndIgnoresUnknownCommands();
        itPlaysTheSameMovesForTheSameSeed();
        itStopsAtQuit();
        System.out.println("StarterTest: " + checks + " checks passed");
    }

    static void itAnswersTheHandshakeAskingForLegalMoves() {
        List<String> lines = run("bep");
        check(lines.get(0).equals("id name java-starter"), "id name first: " + lines);
        check(lines.contains("variant bao-la-kete"), "announces bao-la-kete: " + lines);
        check(lines.contains("variant bao-la-kiswahili"), "announces kiswahili: " + lines);
        check(lines.contains("variant bao-kingulu"), "announces kingulu: " + lines);
        check(lines.contains("option name Seed type spin default 0"), "the Seed option: " + lines);
        int want = lines.indexOf("want legalmoves");
        check(want > 0 && want < lines.size() - 1, "want legalmoves before bepok: " + lines);
        check(lines.get(lines.size() - 1).equals("bepok"), "bepok last: " + lines);
    }

    static void itPlaysOnlyTheLegalMovesItWasSent() {
        for (int seed = 0; seed < 20; seed++) {
            List<String> lines = runSeeded(seed,
                    "newgame bao-la-kete",
                    "position startpos",
                    "legalmoves d2- e2+ f2-",
                    "isready",
                    "go stime 1000 ntime 1000 sinc 100 ninc 100");
            check(lines.get(0).equals("readyok"), "readyok before the move: " + lines);
            String move = lines.get(1);
            check(List.of("bestmove d2-", "bestmove e2+", "bestmove f2-").contains(move),
                    "a legal move: " + move);
        }
        List<String> kingulu = run("newgame bao-kingulu", "position startpos moves c1",
                "legalmoves a2", "isready", "go movetime 100");
        check(kingulu.equals(List.of("readyok", "bestmove a2")), "the only legal move: " + kingulu);
    }

    static void itAnswersIsreadyAndIgnoresUnknownCommands() {
        List<String> lines = run("frobnicate 3", "setoption name X value 1",
                "setoption name Seed value x", "stop", "isready");
        check(lines.equals(List.of("readyok")), "only readyok: " + lines);
    }

    static void itPlaysTheSameMovesForTheSameSeed() {
        String[] game = new String[41];
        game[0] = "setoption name Seed value 12345";
        for (int i = 1; i < game.length; i += 2) {
            game[i] = "legalmoves a1+ a1- b1+ b1- c1+ c1- d1+ d1-";
            game[i + 1] = "go movetime 10";
        }
        List<String> first = runSeeded(1, game);
        List<String> second = runSeeded(2, game);
        check(first.size() == 20 && first.equals(second), "the Seed option decides: " + first);
        game[0] = "setoption name Seed value 54321";
        check(!runSeeded(1, game).equals(first), "another seed, other moves");
    }

    static void itStopsAtQuit() {
        Starter engine = new Starter(new PrintStream(new ByteArrayOutputStream()), 1);
        check(engine.handle("isready"), "goes on after isready");
        check(!engine.handle("quit"), "stops at quit");
    }

    static List<String> run(String... commands) {
        return runSeeded(1, commands);
    }

    static List<String> runSeeded(long seed, String... commands) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Starter engine = new Starter(new PrintStream(bytes, true, StandardCharsets.UTF_8), seed);
        for (String command : commands) {
            engine.handle(command);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            System.err.println("FAILED: " + what);
            System.exit(1);
        }
    }
}
