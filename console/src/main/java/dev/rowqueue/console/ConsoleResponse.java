package dev.rowqueue.console;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A complete HTTP response: status, headers and body. An adapter writes it out as it is.
 */
public final class ConsoleResponse {
    private final int status;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private final byte[] body;

    ConsoleResponse(int status, String contentType, byte[] body) {
        this.status = status;
        this.body = body;
        if (contentType != null) {
            header("Content-Type", contentType);
        }
    }

    static ConsoleResponse html(int status, String html) {
        return new ConsoleResponse(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    static ConsoleResponse json(int status, String json) {
        return new ConsoleResponse(status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8));
    }

    static ConsoleResponse text(int status, String text) {
        return new ConsoleResponse(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    /** A 303 See Other: after a POST, the browser GETs the location. */
    static ConsoleResponse seeOther(String location) {
        return new ConsoleResponse(303, null, new byte[0]).header("Location", location);
    }

    ConsoleResponse header(String name, String value) {
        headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        return this;
    }

    ConsoleResponse headerIfAbsent(String name, String value) {
        if (!headers.containsKey(name)) {
            header(name, value);
        }
        return this;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the headers, in order, each with its values */
    public Map<String, List<String>> headers() {
        return Collections.unmodifiableMap(headers);
    }

    /**
     * @param name a header name, as the console writes it (e.g. {@code Content-Type})
     * @return its first value, or {@code null}
     */
    public String header(String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** @return the body (empty for redirects) */
    public byte[] body() {
        return body.clone();
    }

    /** @return the body as UTF-8 text */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    byte[] rawBody() {
        return body;
    }
}
