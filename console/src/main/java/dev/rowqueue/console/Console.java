package dev.rowqueue.console;

import dev.rowqueue.RowQueues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * rowqueue's operator console: HTML pages for people and a JSON API for scripts, over a {@link ConsoleData}. It is
 * a function from {@link ConsoleRequest} to {@link ConsoleResponse}; {@link ConsoleServer} serves it with the JDK's
 * HTTP server, and a servlet adapter (the Spring Boot starter's) mounts it in a servlet container.
 *
 * <pre>{@code
 * Console console = Console.builder(rowQueues).token(System.getenv("ROWQUEUE_CONSOLE_TOKEN")).build();
 * try (ConsoleServer server = ConsoleServer.start(console, new InetSocketAddress("127.0.0.1", 8080))) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Security, all of it on by default: every request but the sign-in form and the stylesheet needs a credential
 * (the token as {@code Authorization: Bearer}, or a session from signing in, or the container's authenticated user);
 * every change is a POST, checked for its origin and, from a browser session, for its CSRF token; a read-only console
 * has no route that changes anything; every response carries a strict Content-Security-Policy and is not cached;
 * every piece of data is escaped; every change is logged at INFO to {@code dev.rowqueue.console.audit} with the
 * credential's identifier. See docs/console.md.
 */
public final class Console {
    private static final Logger log = LoggerFactory.getLogger(Console.class);

    /** The Content-Security-Policy of every response: nothing inline, nothing from elsewhere, no framing. */
    static final String CSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self';"
            + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final ConsoleData data;
    private final boolean readOnly;
    private final TokenAuth token;
    private final Duration refresh;
    private final Set<String> allowedHosts;
    private final List<Route> routes;
    private final Audit audit = new Audit();

    private Console(Builder b) {
        this.data = b.data != null ? b.data : ConsoleData.over(b.rowQueues, b.refresh.toMillis());
        this.readOnly = b.readOnly;
        this.token = b.token == null ? null : new TokenAuth(b.token);
        this.refresh = b.refresh;
        this.allowedHosts = Set.copyOf(b.allowedHosts);
        this.routes = List.copyOf(new Routes(this).all());
    }

    /**
     * @param rowQueues the database to serve; the console never closes it
     * @return a builder
     */
    public static Builder builder(RowQueues rowQueues) {
        return new Builder(Objects.requireNonNull(rowQueues, "rowQueues"), null);
    }

    /**
     * @param data what the console reads and changes
     * @return a builder
     */
    public static Builder builder(ConsoleData data) {
        return new Builder(null, Objects.requireNonNull(data, "data"));
    }

    /** @return whether this console serves no change at all */
    public boolean readOnly() {
        return readOnly;
    }

    /** @return how the audit log names the console's token; {@code null} under container authentication */
    public String tokenId() {
        return token == null ? null : token.tokenId();
    }

    ConsoleData data() {
        return data;
    }

    TokenAuth tokenAuth() {
        return token;
    }

    Duration refresh() {
        return refresh;
    }

    Audit audit() {
        return audit;
    }

    /**
     * Answers one request. Never throws: an unexpected failure is logged and answered with a 500 page.
     *
     * @param request the request
     * @return the response, with the console's security headers
     */
    public ConsoleResponse handle(ConsoleRequest request) {
        ConsoleResponse response;
        try {
            response = dispatch(request);
        } catch (HttpError e) {
            response = error(request, e.status(), e.getMessage());
        } catch (RuntimeException e) {
            log.warn("rowqueue console: {} failed", request, e);
            response = error(request, 500, "The request failed: " + e.getMessage());
        }
        return withSecurityHeaders(response);
    }

    /**
     * Refuses a request that the container authenticated but that may not use the console (its user lacks the role the
     * console needs, say): 403, with the console's headers, logged to the audit log.
     *
     * @param request the request
     * @param who     the credential's identifier, for the audit log (e.g. {@code user 'bob'})
     * @param message why, for the person
     * @return the response
     */
    public ConsoleResponse refuse(ConsoleRequest request, String who, String message) {
        audit.refused(new Operator(who, false, null), request, message);
        return withSecurityHeaders(Pages.plain(request, 403, "Refused", message));
    }

    private ConsoleResponse dispatch(ConsoleRequest request) {
        if (!allowedHosts.isEmpty() && !hostAllowed(request.header("Host"))) {
            return ConsoleResponse.text(421, "This console answers to " + String.join(", ", new TreeSet<>(allowedHosts))
                    + " only.\n");
        }
        List<String> segments = segments(request.path());
        if (segments.size() == 2 && segments.get(0).equals("assets")) {
            return request.method().equals("GET") || request.method().equals("HEAD") ? Assets.get(segments.get(1))
                    : ConsoleResponse.text(405, "Method not allowed\n").header("Allow", "GET");
        }
        if (token != null && segments.size() == 1 && segments.get(0).equals("sign-in")) {
            return new SignIn(this).handle(request);
        }
        Operator operator = authenticate(request);
        boolean api = !segments.isEmpty() && segments.get(0).equals("api");
        if (operator == null) {
            return unauthenticated(request, api);
        }
        Match match = match(request.method(), segments);
        if (match.route == null) {
            throw match.allowed.isEmpty() ? new HttpError(404, "Nothing here.")
                    : new HttpError(405, "Method not allowed here; use " + String.join(", ", match.allowed) + ".");
        }
        if (match.route.method().equals("POST")) {
            String refused = refusedChange(request, operator);
            if (refused != null) {
                audit.refused(operator, request, refused);
                throw new HttpError(403, refused);
            }
        }
        return match.route.handler().handle(new Call(this, request, operator, match.params, api));
    }

    private Operator authenticate(ConsoleRequest request) {
        if (token == null) {
            return request.operator();
        }
        String authorization = request.header("Authorization");
        if (authorization != null) {
            if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                    && token.isToken(authorization.substring(7).trim())) {
                return token.bearer();
            }
            return null; // a wrong credential is not made up for by a cookie
        }
        return token.session(request.cookie(TokenAuth.COOKIE));
    }

    /**
     * A browser's page request goes to the sign-in form; a script's (the API, a POST, a wrong Authorization header)
     * gets 401.
     */
    private ConsoleResponse unauthenticated(ConsoleRequest request, boolean api) {
        if (api || token == null || !request.method().equals("GET") || request.header("Authorization") != null) {
            ConsoleResponse r = api ? ConsoleResponse.json(401, Json.object()
                    .field("error", token == null ? "sign in to the application first"
                            : "send the console's token as Authorization: Bearer").endObject().toString())
                    : Pages.plain(request, 401, "Sign in first", token == null
                    ? "This console needs the application's sign-in, and this request carried none."
                    : "This request carried no valid credential.");
            if (token != null) {
                r.header("WWW-Authenticate", "Bearer realm=\"rowqueue console\"");
            }
            return r;
        }
        String site = request.header("Sec-Fetch-Site");
        if ("cross-site".equals(site) || "same-site".equals(site)) {
            // The session cookie is SameSite=Strict, so a link from another site arrives without it. Reload once from
            // this page itself: that navigation is same-origin and carries the cookie if the browser has one.
            return Pages.bounce(request);
        }
        String next = request.path() + (request.queryParameters().isEmpty() ? "" : "?" + Routes.query(request));
        return ConsoleResponse.seeOther(request.mount() + "/sign-in?next=" + Routes.encode(next));
    }

    /**
     * Why a POST is refused, or {@code null}: a cross-origin request (by {@code Sec-Fetch-Site} or {@code Origin}), or a
     * browser-session request without the session's CSRF token.
     */
    String refusedChange(ConsoleRequest request, Operator operator) {
        String origin = crossOrigin(request);
        if (origin != null) {
            return origin;
        }
        if (operator != null && operator.ambient()) {
            String sent = request.form("csrf");
            if (sent == null) {
                sent = request.header("X-CSRF-Token");
            }
            if (!TokenAuth.same(sent, operator.csrfToken())) {
                return "This change carried no valid CSRF token. Reload the page and try again.";
            }
        }
        return null;
    }

    /** @return why the request is cross-origin, or {@code null} if it is not (or cannot be told: no browser sent it) */
    static String crossOrigin(ConsoleRequest request) {
        String site = request.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return "Changes are accepted from the console's own pages only (Sec-Fetch-Site: " + site + ").";
        }
        String origin = request.header("Origin");
        if (origin == null) {
            return null; // browsers send Origin with every POST; a script without it proves itself by its token
        }
        String host = request.header("Host");
        if (host == null || !sameAuthority(origin, host)) {
            return "Changes are accepted from the console's own pages only (Origin: " + origin + ").";
        }
        return null;
    }

    /** Whether an Origin header names the same host and port as a Host header (schemes may differ behind a proxy). */
    static boolean sameAuthority(String origin, String host) {
        URI o;
        try {
            o = URI.create(origin);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (o.getHost() == null || o.getScheme() == null) {
            return false;
        }
        int defaultPort = o.getScheme().equalsIgnoreCase("https") ? 443 : 80;
        int originPort = o.getPort() == -1 ? defaultPort : o.getPort();
        String h = host.trim().toLowerCase(Locale.ROOT);
        String hostName;
        int hostPort;
        int colon = h.lastIndexOf(':');
        if (colon > h.lastIndexOf(']')) {
            hostName = h.substring(0, colon);
            try {
                hostPort = Integer.parseInt(h.substring(colon + 1));
            } catch (NumberFormatException e) {
                return false;
            }
        } else {
            hostName = h;
            hostPort = defaultPort;
        }
        return o.getHost().toLowerCase(Locale.ROOT).equals(hostName) && originPort == hostPort;
    }

    private boolean hostAllowed(String host) {
        if (host == null) {
            return false;
        }
        String h = host.trim().toLowerCase(Locale.ROOT);
        int colon = h.lastIndexOf(':');
        if (colon > h.lastIndexOf(']')) {
            h = h.substring(0, colon);
        }
        return allowedHosts.contains(h);
    }

    private record Match(Route route, Map<String, String> params, Set<String> allowed) {
    }

    private Match match(String method, List<String> segments) {
        Set<String> allowed = new TreeSet<>();
        for (Route r : routes) {
            Map<String, String> params = r.match(segments);
            if (params == null) {
                continue;
            }
            if (r.method().equals(method) || (method.equals("HEAD") && r.method().equals("GET"))) {
                return new Match(r, params, allowed);
            }
            allowed.add(r.method());
        }
        return new Match(null, Map.of(), allowed);
    }

    /**
     * @param path a percent-encoded path
     * @return its decoded segments, without empty ones
     * @throws HttpError 400 for a malformed escape, 404 for a dot segment
     */
    static List<String> segments(String path) {
        List<String> out = new ArrayList<>();
        for (String s : path.split("/")) {
            if (s.isEmpty()) {
                continue;
            }
            String d = decodeSegment(s);
            if (d.equals(".") || d.equals("..")) {
                throw new HttpError(404, "Nothing here.");
            }
            out.add(d);
        }
        return out;
    }

    private static String decodeSegment(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new HttpError(400, "Malformed path.");
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new HttpError(400, "Malformed path.");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private ConsoleResponse error(ConsoleRequest request, int status, String message) {
        boolean api = request.path().startsWith("/api/") || request.path().equals("/api");
        if (api) {
            return ConsoleResponse.json(status, Json.object().field("error", message).endObject().toString());
        }
        Operator operator = null;
        try {
            operator = authenticate(request);
        } catch (RuntimeException ignored) {
            // the error page shows no session controls then
        }
        if (operator == null) {
            return Pages.plain(request, status, Pages.title(status), message);
        }
        return Pages.error(new View(this, request, operator), status, message);
    }

    /** Adds the headers every response carries. */
    static ConsoleResponse withSecurityHeaders(ConsoleResponse r) {
        r.headerIfAbsent("Content-Security-Policy", CSP);
        r.headerIfAbsent("X-Frame-Options", "DENY");
        r.headerIfAbsent("X-Content-Type-Options", "nosniff");
        // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on the console's own POSTs,
        // and the origin check could no longer tell them from a forged one. Nothing goes to any other origin.
        r.headerIfAbsent("Referrer-Policy", "same-origin");
        r.headerIfAbsent("Cross-Origin-Opener-Policy", "same-origin");
        r.headerIfAbsent("Cross-Origin-Resource-Policy", "same-origin");
        r.headerIfAbsent("Cache-Control", "no-store");
        return r;
    }

    /** Configures a {@link Console}. */
    public static final class Builder {
        private final RowQueues rowQueues;
        private final ConsoleData data;
        private boolean readOnly;
        private String token;
        private boolean container;
        private Duration refresh = Duration.ofSeconds(10);
        private final Set<String> allowedHosts = new TreeSet<>();

        private Builder(RowQueues rowQueues, ConsoleData data) {
            this.rowQueues = rowQueues;
            this.data = data;
        }

        /**
         * Serves no change at all: the routes that change anything are not registered (a POST to them is answered
         * 404 or 405) and the pages show no buttons for them.
         *
         * @param readOnly whether to
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * The console's own credential: scripts send it as {@code Authorization: Bearer}, people type it once into
         * the sign-in form.
         *
         * @param token at least 16 printable ASCII characters; {@link #randomToken()} makes a good one
         * @return this builder
         */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            new TokenAuth(token); // validates now, not at build
            this.container = false;
            return this;
        }

        /**
         * The servlet container authenticates (Spring Security, say): every request's {@link ConsoleRequest#operator()}
         * says who sent it, and one without an operator is refused. The console serves no sign-in form then.
         *
         * @return this builder
         */
        public Builder containerAuthentication() {
            this.container = true;
            this.token = null;
            return this;
        }

        /**
         * How often the overview and a work queue's page refresh themselves while visible, and how long reads are
         * reused (so every tab of every operator together costs one query per queue per interval). Default 10 s.
         *
         * @param interval at least 1 s
         * @return this builder
         */
        public Builder refresh(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("the refresh interval must be at least 1 s, got " + interval);
            }
            this.refresh = interval;
            return this;
        }

        /**
         * Answers only requests whose {@code Host} header names one of these hosts (a port may follow): a server on a
         * loopback address should not answer a page of another site whose name was pointed at 127.0.0.1 (DNS
         * rebinding). {@link ConsoleServer#start} sets it for loopback addresses. Default: any host.
         *
         * @param hosts host names or addresses, e.g. {@code localhost}, {@code 127.0.0.1}, {@code [::1]}
         * @return this builder
         */
        public Builder allowedHosts(Set<String> hosts) {
            allowedHosts.clear();
            hosts.forEach(h -> allowedHosts.add(h.toLowerCase(Locale.ROOT)));
            return this;
        }

        /**
         * @return the console
         * @throws IllegalStateException if neither a token nor container authentication was chosen: a console without
         *                               a credential is never built
         */
        public Console build() {
            if (token == null && !container) {
                throw new IllegalStateException("the console needs a credential: token(...) or"
                        + " containerAuthentication()");
            }
            return new Console(this);
        }
    }

    /**
     * @param token a console token
     * @return how the audit log names it: {@code token sha256:} and the first 8 hex digits of its SHA-256
     */
    public static String tokenId(String token) {
        return new TokenAuth(token).tokenId();
    }

    /** @return a new random token (32 random bytes, base64url) */
    public static String randomToken() {
        return TokenAuth.randomToken();
    }

    /** A failure with an HTTP status and a message for the operator. */
    static final class HttpError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        HttpError(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    /** A route: method, path pattern ({@code {name}} segments capture), and what answers it. */
    record Route(String method, List<String> pattern, Handler handler) {
        Map<String, String> match(List<String> segments) {
            if (segments.size() != pattern.size()) {
                return null;
            }
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < pattern.size(); i++) {
                String p = pattern.get(i);
                if (p.startsWith("{")) {
                    params.put(p.substring(1, p.length() - 1), segments.get(i));
                } else if (!p.equals(segments.get(i))) {
                    return null;
                }
            }
            return params;
        }

        static Route of(String method, String pattern, Handler handler) {
            return new Route(method, List.of(pattern.split("/")).stream().filter(s -> !s.isEmpty())
                    .collect(Collectors.toUnmodifiableList()), handler);
        }
    }

    /** Answers a matched route. */
    interface Handler {
        ConsoleResponse handle(Call call);
    }

    /**
     * A request matched to a route, with its authenticated operator.
     *
     * @param console  the console
     * @param request  the request
     * @param operator who sent it
     * @param params   the path's captured segments, decoded
     * @param api      whether it is a JSON API request
     */
    record Call(Console console, ConsoleRequest request, Operator operator, Map<String, String> params, boolean api) {
        View view() {
            return new View(console, request, operator);
        }
    }

    /**
     * What every page needs to know about the request it renders.
     *
     * @param console  the console
     * @param request  the request
     * @param operator who is looking
     */
    record View(Console console, ConsoleRequest request, Operator operator) {
        String mount() {
            return request.mount();
        }
    }
}
