package dev.rowqueue.console;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small streaming JSON writer (RFC 8259): objects, arrays, strings, numbers, booleans and null, with commas and
 * nesting checked. Strings escape {@code "} and {@code \}, every control character, and also {@code < > &}, U+2028,
 * U+2029 and unpaired surrogates as {@code \}{@code uXXXX}, so the output is valid UTF-8 and never reads as markup even
 * if a client sniffs it.
 */
final class Json {
    private enum Scope { OBJECT, ARRAY }

    private final StringBuilder out = new StringBuilder(1024);
    private final Deque<Scope> scopes = new ArrayDeque<>();
    /** Whether the current scope already holds a member (a comma goes before the next). */
    private boolean nonEmpty;
    /** Whether a name was just written in an object (a value must follow). */
    private boolean afterName;
    private boolean done;

    /** @return a writer whose top level value is an object, opened */
    static Json object() {
        return new Json().beginObject();
    }

    Json beginObject() {
        beforeValue(true);
        out.append('{');
        scopes.push(Scope.OBJECT);
        nonEmpty = false;
        return this;
    }

    Json endObject() {
        end(Scope.OBJECT, '}');
        return this;
    }

    Json beginArray() {
        beforeValue(true);
        out.append('[');
        scopes.push(Scope.ARRAY);
        nonEmpty = false;
        return this;
    }

    Json endArray() {
        end(Scope.ARRAY, ']');
        return this;
    }

    /**
     * @param name a member name of the current object
     * @return this
     */
    Json name(String name) {
        if (scopes.peek() != Scope.OBJECT || afterName) {
            throw new IllegalStateException("a name belongs in an object, before a value");
        }
        if (nonEmpty) {
            out.append(',');
        }
        string(name);
        out.append(':');
        afterName = true;
        return this;
    }

    Json value(String s) {
        beforeValue(false);
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        return this;
    }

    Json value(long n) {
        beforeValue(false);
        out.append(n);
        return this;
    }

    Json value(boolean b) {
        beforeValue(false);
        out.append(b);
        return this;
    }

    /**
     * @param t an instant, written as an ISO-8601 string, or {@code null}
     * @return this
     */
    Json value(Instant t) {
        return value(t == null ? null : t.toString());
    }

    Json nullValue() {
        beforeValue(false);
        out.append("null");
        return this;
    }

    /** Shorthands for {@code name(n).value(v)}. */
    Json field(String name, String v) {
        return name(name).value(v);
    }

    Json field(String name, long v) {
        return name(name).value(v);
    }

    Json field(String name, boolean v) {
        return name(name).value(v);
    }

    Json field(String name, Instant v) {
        return name(name).value(v);
    }

    private void beforeValue(boolean container) {
        if (done) {
            throw new IllegalStateException("the top level value is complete");
        }
        Scope scope = scopes.peek();
        if (scope == Scope.OBJECT) {
            if (!afterName) {
                throw new IllegalStateException("a value in an object needs a name first");
            }
            afterName = false;
        } else if (scope == Scope.ARRAY && nonEmpty) {
            out.append(',');
        }
        nonEmpty = true;
        if (scope == null && !container) {
            done = true;
        }
    }

    private void end(Scope expected, char c) {
        if (scopes.peek() != expected || afterName) {
            throw new IllegalStateException("nothing to close with '" + c + "'");
        }
        scopes.pop();
        out.append(c);
        nonEmpty = true;
        if (scopes.isEmpty()) {
            done = true;
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '<', '>', '&', '\u2028', '\u2029' -> unicode(c);
                default -> {
                    if (c < 0x20) {
                        unicode(c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        unicode(c); // unpaired: not encodable as UTF-8, so escaped
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private void unicode(char c) {
        out.append("\\u");
        String hex = Integer.toHexString(c);
        out.append("0".repeat(4 - hex.length())).append(hex);
    }

    /**
     * @return the document
     * @throws IllegalStateException if an object or array is still open
     */
    @Override
    public String toString() {
        if (!scopes.isEmpty()) {
            throw new IllegalStateException("unclosed " + scopes.peek().name().toLowerCase(java.util.Locale.ROOT));
        }
        return out.toString();
    }
}
