package dev.rowqueue.spring;

import dev.rowqueue.console.Console;
import dev.rowqueue.console.ConsoleRequest;
import dev.rowqueue.console.ConsoleResponse;
import dev.rowqueue.console.Operator;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Serves rowqueue's operator {@link Console} in a servlet container: turns each request into a
 * {@link ConsoleRequest} (below the servlet's mapping, with the container's authenticated operator when the console
 * uses container authentication) and writes the {@link ConsoleResponse} back as it is.
 */
public class ConsoleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Who sent a request, as the container authenticated it. */
    public interface Operators {
        /**
         * @param request a request
         * @return its operator, or {@code null} if nobody signed in
         * @throws Refused if someone did, who may not use the console
         */
        Operator operator(HttpServletRequest request);

        /**
         * @param request a request
         * @return hidden fields every form must carry (such as Spring Security's CSRF token)
         */
        Map<String, String> formFields(HttpServletRequest request);
    }

    /** A signed-in user who may not use the console. */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String who;

        /**
         * @param who     the credential's identifier
         * @param message why, for the person
         */
        public Refused(String who, String message) {
            super(message, null, false, false);
            this.who = who;
        }

        /** @return the credential's identifier */
        public String who() {
            return who;
        }
    }

    /** The console authenticates by itself (its token): the container's users do not count. */
    static final Operators NONE = new Operators() {
        @Override
        public Operator operator(HttpServletRequest request) {
            return null;
        }

        @Override
        public Map<String, String> formFields(HttpServletRequest request) {
            return Map.of();
        }
    };

    private final transient Console console;
    private final transient Operators operators;

    /**
     * @param console   the console
     * @param operators who sent each request; {@link #NONE}-like for a console with its own token
     */
    public ConsoleServlet(Console console, Operators operators) {
        this.console = console;
        this.operators = operators;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String mount = req.getContextPath() + req.getServletPath();
        ConsoleRequest.Builder b = ConsoleRequest.builder(req.getMethod(), path(req, mount)).mount(mount)
                .query(req.getQueryString()).remoteAddress(req.getRemoteAddr()).secure(req.isSecure());
        for (String name : Collections.list(req.getHeaderNames())) {
            for (String value : Collections.list(req.getHeaders(name))) {
                b.header(name, value);
            }
        }
        Map<String, List<String>> query = ConsoleRequest.parseUrlEncoded(req.getQueryString());
        b.form(formOnly(req.getParameterMap(), query));
        ConsoleResponse response;
        try {
            b.operator(operators.operator(req)).formFields(operators.formFields(req));
            response = console.handle(b.build());
        } catch (Refused e) {
            response = console.refuse(b.build(), e.who(), e.getMessage());
        }
        resp.setStatus(response.status());
        response.headers().forEach((name, values) -> values.forEach(v -> resp.addHeader(name, v)));
        byte[] body = response.body();
        if (body.length > 0 && !req.getMethod().equals("HEAD")) {
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    /** The percent-encoded path below the mapping, without path parameters ({@code ;jsessionid=...}). */
    private static String path(HttpServletRequest req, String mount) {
        String uri = req.getRequestURI();
        String rest = uri.startsWith(mount) ? uri.substring(mount.length()) : req.getPathInfo();
        if (rest == null || rest.isEmpty()) {
            return "/";
        }
        return rest.replaceAll(";[^/]*", "");
    }

    /** The servlet API merges query and form parameters; the console keeps them apart. */
    private static Map<String, List<String>> formOnly(Map<String, String[]> all, Map<String, List<String>> query) {
        Map<String, List<String>> form = new LinkedHashMap<>();
        all.forEach((name, values) -> {
            List<String> rest = new ArrayList<>(List.of(values));
            query.getOrDefault(name, List.of()).forEach(rest::remove);
            if (!rest.isEmpty()) {
                form.put(name, rest);
            }
        });
        return form;
    }
}
