package dev.rowqueue.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A text table drawn like the mysql client's, as in the source articles' transcripts:
 *
 * <pre>
 * +-----+------+----------+
 * | seq | slot | payload  |
 * +-----+------+----------+
 * |   1 |    1 | apples   |
 * +-----+------+----------+
 * </pre>
 *
 * Numbers are right-aligned, text left-aligned, {@code null} is shown as {@code NULL}, and control characters are
 * escaped so a payload cannot break the layout.
 */
public final class Table {

    /**
     * A cell shown with a style (such as a colour) that does not count towards the column width.
     *
     * @param text  the text
     * @param style adds the style, e.g. {@code terminal::green}
     */
    public record Styled(String text, UnaryOperator<String> style) {
        @Override
        public String toString() {
            return text;
        }
    }

    private final List<String> headers;
    private final List<Object[]> rows = new ArrayList<>();

    /**
     * @param headers the column names
     */
    public Table(String... headers) {
        this.headers = List.of(headers);
    }

    /**
     * @param cells one value per column
     * @return this table
     */
    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("expected " + headers.size() + " cells, got " + Arrays.toString(cells));
        }
        rows.add(cells.clone());
        return this;
    }

    /** @return how many rows the table has */
    public int size() {
        return rows.size();
    }

    static String text(Object cell) {
        if (cell == null) {
            return "NULL";
        }
        String s = cell.toString();
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private static int width(String s) {
        return s.codePointCount(0, s.length());
    }

    /**
     * @param terminal decides whether the header is bold
     * @return the table as lines of text, ending with a new line
     */
    public String render(Terminal terminal) {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = width(headers.get(c));
        }
        List<String[]> texts = new ArrayList<>();
        for (Object[] row : rows) {
            String[] t = new String[row.length];
            for (int c = 0; c < row.length; c++) {
                t[c] = text(row[c]);
                widths[c] = Math.max(widths[c], width(t[c]));
            }
            texts.add(t);
        }
        StringBuilder rule = new StringBuilder("+");
        for (int w : widths) {
            rule.append("-".repeat(w + 2)).append('+');
        }
        rule.append('\n');
        StringBuilder b = new StringBuilder(rule);
        b.append('|');
        for (int c = 0; c < widths.length; c++) {
            String h = headers.get(c);
            b.append(' ').append(terminal == null ? h : terminal.bold(h)).append(" ".repeat(widths[c] - width(h)))
                    .append(" |");
        }
        b.append('\n').append(rule);
        for (int r = 0; r < texts.size(); r++) {
            b.append('|');
            for (int c = 0; c < widths.length; c++) {
                String t = texts.get(r)[c];
                String pad = " ".repeat(widths[c] - width(t));
                Object cell = rows.get(r)[c];
                String shown = cell instanceof Styled s ? s.style().apply(t) : t;
                b.append(' ').append(cell instanceof Number ? pad + shown : shown + pad).append(" |");
            }
            b.append('\n');
        }
        if (!texts.isEmpty()) {
            b.append(rule);
        }
        return b.toString();
    }
}
