package dev.rowqueue.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One HTTP request as the console sees it, whichever server received it: the JDK's ({@link ConsoleServer}) or a
 * servlet container. An adapter builds it and hands it to {@link Console#handle(ConsoleRequest)}.
 */
public final class ConsoleRequest {
    private final String method;
    private final String mount;
    private final String path;
    private final Map<String, List<String>> query;
    private final Map<String, List<String>> form;
    private final Map<String, List<String>> headers;
    private final String remoteAddress;
    private final boolean secure;
    private final Operator operator;
    private final Map<String, String> formFields;

    private ConsoleRequest(Builder b) {
        this.method = b.method;
        this.mount = b.mount;
        this.path = b.path;
        this.query = copy(b.query);
        this.form = copy(b.form);
        this.headers = copy(b.headers);
        this.remoteAddress = b.remoteAddress;
        this.secure = b.secure;
        this.operator = b.operator;
        this.formFields = Map.copyOf(b.formFields);
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> m) {
        Map<String, List<String>> c = new LinkedHashMap<>();
        m.forEach((k, v) -> c.put(k, List.copyOf(v)));
        return Map.copyOf(c);
    }

    /**
     * @param method the HTTP method
     * @param path   the path below the console's mount point, starting with {@code /} (percent-encoded as received)
     * @return a builder
     */
    public static Builder builder(String method, String path) {
        return new Builder(method, path);
    }

    /** @return the HTTP method, upper case */
    public String method() {
        return method;
    }

    /** @return where the console is mounted, without a trailing slash ({@code ""} at the root, or {@code /rowqueue}) */
    public String mount() {
        return mount;
    }

    /** @return the path below the mount point, starting with {@code /}, percent-encoded */
    public String path() {
        return path;
    }

    /**
     * @param name a query parameter
     * @return its first value, or {@code null}
     */
    public String query(String name) {
        return first(query, name);
    }

    /** @return the query parameters */
    public Map<String, List<String>> queryParameters() {
        return query;
    }

    /**
     * @param name a field of a URL-encoded form body
     * @return its first value, or {@code null}
     */
    public String form(String name) {
        return first(form, name);
    }

    /**
     * @param name a header, case-insensitive
     * @return its first value, or {@code null}
     */
    public String header(String name) {
        return first(headers, name.toLowerCase(Locale.ROOT));
    }

    /**
     * @param name a cookie
     * @return its value, or {@code null}
     */
    public String cookie(String name) {
        for (String header : headers.getOrDefault("cookie", List.of())) {
            for (String part : header.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).trim().equals(name)) {
                    return part.substring(eq + 1).trim();
                }
            }
        }
        return null;
    }

    /** @return the client's address, for the audit log */
    public String remoteAddress() {
        return remoteAddress;
    }

    /** @return whether the request came over HTTPS (then cookies are marked {@code Secure}) */
    public boolean secure() {
        return secure;
    }

    /**
     * @return the operator a servlet container authenticated, for a console built with
     *         {@link Console.Builder#containerAuthentication()}; {@code null} otherwise or when nobody signed in
     */
    public Operator operator() {
        return operator;
    }

    /**
     * @return extra hidden fields every form must carry, such as Spring Security's CSRF token (name to value)
     */
    public Map<String, String> formFields() {
        return formFields;
    }

    private static String first(Map<String, List<String>> m, String name) {
        List<String> values = m.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /**
     * Parses {@code application/x-www-form-urlencoded} text (a query string or a form body).
     *
     * @param encoded the text, or {@code null}
     * @return names to values, in order
     * @throws IllegalArgumentException for a malformed percent escape
     */
    public static Map<String, List<String>> parseUrlEncoded(String encoded) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return m;
        }
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            m.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return m;
    }

    @Override
    public String toString() {
        return method + " " + mount + path;
    }

    /** Builds a {@link ConsoleRequest}. */
    public static final class Builder {
        private final String method;
        private final String path;
        private String mount = "";
        private Map<String, List<String>> query = Map.of();
        private Map<String, List<String>> form = Map.of();
        private final Map<String, List<String>> headers = new LinkedHashMap<>();
        private String remoteAddress = "unknown";
        private boolean secure;
        private Operator operator;
        private Map<String, String> formFields = Map.of();

        private Builder(String method, String path) {
            this.method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
            Objects.requireNonNull(path, "path");
            this.path = path.isEmpty() ? "/" : path;
        }

        /**
         * @param mount where the console is mounted ({@code ""} or a path such as {@code /rowqueue})
         * @return this
         */
        public Builder mount(String mount) {
            String m = Objects.requireNonNull(mount, "mount");
            this.mount = m.endsWith("/") ? m.substring(0, m.length() - 1) : m;
            return this;
        }

        /**
         * @param rawQuery the URL's query string, percent-encoded, or {@code null}
         * @return this
         */
        public Builder query(String rawQuery) {
            this.query = parseUrlEncoded(rawQuery);
            return this;
        }

        /**
         * @param parameters query parameters already decoded
         * @return this
         */
        public Builder queryParameters(Map<String, List<String>> parameters) {
            this.query = Objects.requireNonNull(parameters, "parameters");
            return this;
        }

        /**
         * @param parameters the fields of a URL-encoded form body, decoded
         * @return this
         */
        public Builder form(Map<String, List<String>> parameters) {
            this.form = Objects.requireNonNull(parameters, "parameters");
            return this;
        }

        /**
         * @param name  a header name
         * @param value one of its values
         * @return this
         */
        public Builder header(String name, String value) {
            headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
            return this;
        }

        /**
         * @param address the client's address
         * @return this
         */
        public Builder remoteAddress(String address) {
            this.remoteAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * @param secure whether the request came over HTTPS
         * @return this
         */
        public Builder secure(boolean secure) {
            this.secure = secure;
            return this;
        }

        /**
         * @param operator the operator the container authenticated, or {@code null}
         * @return this
         */
        public Builder operator(Operator operator) {
            this.operator = operator;
            return this;
        }

        /**
         * @param fields hidden fields every form must carry (such as Spring Security's CSRF token)
         * @return this
         */
        public Builder formFields(Map<String, String> fields) {
            this.formFields = Objects.requireNonNull(fields, "fields");
            return this;
        }

        /** @return the request */
        public ConsoleRequest build() {
            return new ConsoleRequest(this);
        }
    }
}
