package dev.rowqueue.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A plain HTTP client for the tests: no redirects followed, no cookie jar; headers given per request. Signing in
 * keeps the session cookie and the page's CSRF token, as a browser would.
 */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    private final URI base;
    /** The session cookie ("rowqueue_console=..."), once signed in. */
    String cookie;

    Http(URI base) {
        this.base = base;
    }

    HttpResponse<String> get(String path, String... headers) {
        return send(HttpRequest.newBuilder(resolve(path)).GET(), headers);
    }

    HttpResponse<String> post(String path, Map<String, String> form, String... headers) {
        String body = form.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        return send(HttpRequest.newBuilder(resolve(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/x-www-form-urlencoded"), headers);
    }

    /** @return the session cookie after signing in with the token (and asserts that it worked) */
    String signIn(String token) {
        HttpResponse<String> r = post("/sign-in", Map.of("token", token, "next", "/"));
        if (r.statusCode() != 303) {
            throw new AssertionError("sign-in answered " + r.statusCode() + ": " + r.body());
        }
        String set = r.headers().firstValue("Set-Cookie").orElseThrow();
        cookie = set.substring(0, set.indexOf(';'));
        return set;
    }

    /**
     * @param path a page with a form
     * @return the CSRF token the page's forms carry
     */
    String csrf(String path) {
        HttpResponse<String> r = get(path, "Cookie", cookie);
        Matcher m = CSRF.matcher(r.body());
        if (!m.find()) {
            throw new AssertionError("no CSRF token on " + path + ": " + r.body());
        }
        return m.group(1);
    }

    static Map<String, String> form(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    private URI resolve(String path) {
        return base.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static HttpResponse<String> send(HttpRequest.Builder b, String... headers) {
        for (int i = 0; i + 1 < headers.length; i += 2) {
            if (headers[i + 1] != null) {
                b.header(headers[i], headers[i + 1]);
            }
        }
        try {
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
