package dev.rowqueue.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Reads README.md and docs/*.md: their fenced code blocks and the rowqueue commands in them. */
final class Docs {

    /** The repository's root, from the cli module's directory where the tests run. */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /**
     * @param file   the Markdown file
     * @param line   where the command starts (1-based)
     * @param text   the command as written, continuation lines joined
     * @param args   the arguments after {@code rowqueue} / {@code rowqueue.jar}, without comments and redirections
     * @param stdin  whether the command reads standard input ({@code <})
     * @param pipe   the command its output is piped into, or {@code null}
     */
    record Command(Path file, int line, String text, List<String> args, boolean stdin, String pipe) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line + ": " + text;
        }
    }

    /**
     * @param file the Markdown file
     * @param lang the language of the block (e.g. "java"), or "" for blocks without one
     * @param line where the block's first line is (1-based)
     * @param code the block's text
     */
    record Block(Path file, String lang, int line, String code) {
    }

    private Docs() {
    }

    /** @return README.md and every docs/*.md */
    static List<Path> files() {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    static List<Block> blocks(Path file) {
        List<String> lines = read(file);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.startsWith("```")) {
                String lang = l.substring(3).strip();
                int start = i + 1;
                StringBuilder code = new StringBuilder();
                for (i = start; i < lines.size() && !lines.get(i).strip().startsWith("```"); i++) {
                    code.append(lines.get(i)).append('\n');
                }
                blocks.add(new Block(file, lang, start + 1, code.toString()));
            }
        }
        return blocks;
    }

    private static final Pattern JAR = Pattern.compile("(?:^|\\s)java -jar \\S*rowqueue\\.jar\\s+(.*)$");
    private static final Pattern INLINE = Pattern.compile("`(java -jar \\S*rowqueue\\.jar\\s[^`]+)`", Pattern.DOTALL);

    /**
     * Every command: lines of fenced {@code sh} blocks that run {@code java -jar ...rowqueue.jar} or start with
     * {@code rowqueue }, and inline code spans that run the jar.
     */
    static List<Command> commands(Path file) {
        List<Command> commands = new ArrayList<>();
        for (Block b : blocks(file)) {
            if (!(b.lang().equals("sh") || b.lang().equals("bash") || b.lang().equals("shell"))) {
                continue;
            }
            String[] lines = b.code().split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                int first = i;
                StringBuilder joined = new StringBuilder(lines[i]);
                while (joined.toString().stripTrailing().endsWith("\\") && i + 1 < lines.length) {
                    String s = joined.toString().stripTrailing();
                    joined = new StringBuilder(s.substring(0, s.length() - 1)).append(' ').append(lines[++i].strip());
                }
                String line = joined.toString();
                Matcher m = JAR.matcher(line);
                String rest = null;
                if (m.find()) {
                    rest = m.group(1);
                } else if (line.strip().startsWith("rowqueue ")) {
                    rest = line.strip().substring("rowqueue ".length());
                }
                if (rest != null) {
                    commands.add(command(file, b.line() + first, line.strip(), rest));
                }
            }
        }
        String text = String.join("\n", read(file));
        Matcher m = INLINE.matcher(text);
        while (m.find()) {
            String span = m.group(1).replaceAll("\\s+", " ");
            int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
            Matcher jar = JAR.matcher(span);
            if (jar.find()) {
                commands.add(command(file, line, span, jar.group(1)));
            }
        }
        return commands;
    }

    private static Command command(Path file, int line, String text, String rest) {
        List<String> words = shellWords(rest);
        List<String> args = new ArrayList<>();
        boolean stdin = false;
        String pipe = null;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("#")) {
                break;
            }
            if (w.equals("<")) {
                stdin = true;
                i++;
                continue;
            }
            if (w.equals("|")) {
                pipe = String.join(" ", words.subList(i + 1, words.size())).replaceAll("\\s+#.*$", "");
                break;
            }
            args.add(w);
        }
        return new Command(file, line, text, args, stdin, pipe);
    }

    /** Splits as a POSIX shell does for plain words, single and double quotes; {@code #} after a space starts a comment. */
    static List<String> shellWords(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'') {
                int end = s.indexOf('\'', i + 1);
                w.append(s, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                int end = s.indexOf('"', i + 1);
                w.append(s, i + 1, end);
                i = end;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else if (c == '#' && !inWord) {
                words.add("#");
                break;
            } else if ((c == '|' || c == '<') && !inWord) {
                words.add(String.valueOf(c));
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(w.toString());
        }
        return words;
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
