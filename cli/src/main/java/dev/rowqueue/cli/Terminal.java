package dev.rowqueue.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Where a command writes, and how. Colour is used only on an interactive terminal whose {@code TERM} is set and not
 * {@code dumb}, unless {@code NO_COLOR} is set (to anything non-empty) or {@code --color} says otherwise. Progress
 * bars need an interactive terminal that is not {@code dumb}; they are drawn on standard error, so standard output
 * stays the same whether or not a terminal is attached.
 */
public final class Terminal {

    /** When to use colour. */
    public enum ColorMode {
        /** On a capable terminal, unless NO_COLOR is set. */
        AUTO,
        /** Always, even into a file. */
        ALWAYS,
        /** Never. */
        NEVER
    }

    private static final String ESC = "\u001b[";

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean colour;
    private final boolean progress;
    private final int width;

    /**
     * @param out  standard output
     * @param err  standard error
     * @param env  the environment
     * @param mode the {@code --color} choice
     */
    public Terminal(PrintWriter out, PrintWriter err, CliEnv env, ColorMode mode) {
        this.out = out;
        this.err = err;
        String term = env.getenv("TERM");
        boolean capable = env.interactive() && term != null && !term.isBlank()
                && !term.toLowerCase(Locale.ROOT).equals("dumb");
        String noColor = env.getenv("NO_COLOR");
        this.colour = switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> capable && (noColor == null || noColor.isEmpty());
        };
        this.progress = capable;
        int w = 80;
        try {
            String columns = env.getenv("COLUMNS");
            if (columns != null) {
                w = Math.max(40, Integer.parseInt(columns.trim()));
            }
        } catch (NumberFormatException ignored) {
            // keep 80
        }
        this.width = w;
    }

    /** @return standard output */
    public PrintWriter out() {
        return out;
    }

    /** @return standard error */
    public PrintWriter err() {
        return err;
    }

    /** @return whether colour escapes are written */
    public boolean colour() {
        return colour;
    }

    /** @return whether progress bars are drawn */
    public boolean progressBars() {
        return progress;
    }

    private String sgr(String code, String text) {
        return colour ? ESC + code + "m" + text + ESC + "0m" : text;
    }

    /**
     * @param text text
     * @return the text in bold, when colour is on
     */
    public String bold(String text) {
        return sgr("1", text);
    }

    /**
     * @param text text
     * @return the text in green, when colour is on
     */
    public String green(String text) {
        return sgr("1;32", text);
    }

    /**
     * @param text text
     * @return the text in red, when colour is on
     */
    public String red(String text) {
        return sgr("1;31", text);
    }

    /**
     * @param text text
     * @return the text in yellow, when colour is on
     */
    public String yellow(String text) {
        return sgr("33", text);
    }

    /**
     * @param text text
     * @return the text in cyan, when colour is on
     */
    public String cyan(String text) {
        return sgr("36", text);
    }

    /**
     * @param text text
     * @return the text dimmed, when colour is on
     */
    public String dim(String text) {
        return sgr("2", text);
    }

    /**
     * Colours a verdict: green for PASSED, OK and VERIFIED, red for the rest.
     *
     * @param verdict a verdict word
     * @return the coloured word
     */
    public String verdict(String verdict) {
        return switch (verdict) {
            case "PASSED", "OK", "VERIFIED" -> green(verdict);
            default -> red(verdict);
        };
    }

    /**
     * Prints a line on standard output.
     *
     * @param line the line
     */
    public void println(String line) {
        out.println(line);
        out.flush();
    }

    /**
     * Prints a table on standard output.
     *
     * @param table the table
     */
    public void print(Table table) {
        out.print(table.render(this));
        out.flush();
    }

    /**
     * A progress bar on standard error; one that draws nothing when the terminal cannot show it.
     *
     * @param label what is progressing
     * @param total the amount of work, 0 if unknown
     * @return the bar; close it when done
     */
    public ProgressBar progress(String label, long total) {
        return new ProgressBar(label, total);
    }

    /** A one-line progress bar redrawn in place with carriage returns. */
    public final class ProgressBar implements AutoCloseable {
        private final String label;
        private long total;
        private long lastDraw;
        private boolean drawn;

        private ProgressBar(String label, long total) {
            this.label = label;
            this.total = total;
        }

        /**
         * @param total the new total amount of work
         */
        public void total(long total) {
            this.total = total;
        }

        /**
         * Redraws the bar, at most ten times a second unless the work is complete.
         *
         * @param done   work done so far
         * @param detail what is being done, shown after the numbers
         */
        public void update(long done, String detail) {
            if (!progress) {
                return;
            }
            long now = System.nanoTime();
            if (drawn && done < total && now - lastDraw < 100_000_000L) {
                return;
            }
            lastDraw = now;
            drawn = true;
            int cells = 24;
            int filled = total <= 0 ? 0 : (int) Math.min(cells, done * cells / total);
            int percent = total <= 0 ? 0 : (int) Math.min(100, done * 100 / total);
            String bar = "[" + "#".repeat(filled) + "-".repeat(cells - filled) + "]";
            String line = label + " " + bar + String.format(" %3d%% %d/%d ", percent, done, total) + detail;
            if (line.length() > width - 1) {
                line = line.substring(0, width - 1);
            }
            err.print("\r" + cyan(line) + ESC + "K");
            err.flush();
        }

        @Override
        public void close() {
            if (progress && drawn) {
                err.print("\r" + ESC + "K");
                err.flush();
            }
        }
    }
}
