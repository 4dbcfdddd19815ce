package dev.rowqueue.console;

/**
 * Writes HTML with every piece of data escaped: {@link #text} for element content, attribute values through
 * {@link #open}. Markup itself comes only from string constants in this package ({@link #raw}), never from data, so
 * a payload, an error, a group or a counter key always shows as text.
 */
final class Html {
    private final StringBuilder out = new StringBuilder(4096);

    /**
     * @param s any text
     * @return it with {@code & < > " '} replaced by character references, safe in content and quoted attributes
     */
    static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String r = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (r != null) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                b.append(r);
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }

    /**
     * Markup from this package's constants. Never pass data here.
     *
     * @param markup trusted markup
     * @return this
     */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /**
     * @param text data, escaped
     * @return this
     */
    Html text(String text) {
        out.append(escape(text));
        return this;
    }

    /**
     * @param value a number
     * @return this
     */
    Html num(long value) {
        out.append(value);
        return this;
    }

    /**
     * Opens an element.
     *
     * @param tag        a tag name (a constant)
     * @param attributes name, value, name, value, ...: names are constants, values are escaped; a {@code null}
     *                   value leaves the attribute out, an empty one writes it bare ({@code hidden})
     * @return this
     */
    Html open(String tag, String... attributes) {
        out.append('<').append(tag);
        for (int i = 0; i + 1 < attributes.length; i += 2) {
            String value = attributes[i + 1];
            if (value == null) {
                continue;
            }
            out.append(' ').append(attributes[i]);
            if (!value.isEmpty()) {
                out.append("=\"").append(escape(value)).append('"');
            }
        }
        out.append('>');
        return this;
    }

    /**
     * @param tag the element to close
     * @return this
     */
    Html close(String tag) {
        out.append("</").append(tag).append('>');
        return this;
    }

    /**
     * An element holding text only.
     *
     * @param tag        the tag
     * @param text       its content, escaped
     * @param attributes as for {@link #open}
     * @return this
     */
    Html el(String tag, String text, String... attributes) {
        return open(tag, attributes).text(text).close(tag);
    }

    /**
     * A hidden form field.
     *
     * @param name  the field name
     * @param value its value
     * @return this
     */
    Html hidden(String name, String value) {
        return open("input", "type", "hidden", "name", name, "value", value);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
