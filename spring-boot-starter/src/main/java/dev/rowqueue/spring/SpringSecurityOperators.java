package dev.rowqueue.spring;

import dev.rowqueue.console.Operator;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import org.springframework.security.web.csrf.CsrfToken;

import java.security.Principal;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The console's operators behind the application's Spring Security: whoever Spring Security authenticated (an
 * anonymous user is nobody), holding {@code rowqueue.console.role} if set. A browser's credential (a session, HTTP
 * Basic) is ambient, so its changes must carry the console's CSRF token, kept in the HTTP session, and every form also
 * carries Spring Security's own CSRF token, which its filter checks first. A request with {@code Authorization: Bearer}
 * (a resource server's token) is not ambient.
 */
final class SpringSecurityOperators implements ConsoleServlet.Operators {
    static final String CSRF_ATTRIBUTE = "dev.rowqueue.console.csrf";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String role;

    /**
     * @param role the role an operator needs, or {@code null} for any authenticated user
     */
    SpringSecurityOperators(String role) {
        this.role = role == null || role.isBlank() ? null : role.trim();
    }

    @Override
    public Operator operator(HttpServletRequest request) {
        Principal p = request.getUserPrincipal(); // null for Spring Security's anonymous user
        if (p == null) {
            return null;
        }
        String who = "user '" + p.getName() + "'";
        if (role != null && !request.isUserInRole(role)) {
            throw new ConsoleServlet.Refused(who, "The console needs the role " + role + ", which " + who
                    + " does not have.");
        }
        String authorization = request.getHeader("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return new Operator(who, false, null);
        }
        return new Operator(who, true, csrfToken(request.getSession(true)));
    }

    private static String csrfToken(HttpSession session) {
        synchronized (session) {
            Object t = session.getAttribute(CSRF_ATTRIBUTE);
            if (t instanceof String s) {
                return s;
            }
            byte[] b = new byte[32];
            RANDOM.nextBytes(b);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
            session.setAttribute(CSRF_ATTRIBUTE, token);
            return token;
        }
    }

    @Override
    public Map<String, String> formFields(HttpServletRequest request) {
        Object attribute = request.getAttribute(CsrfToken.class.getName());
        if (attribute instanceof CsrfToken token) {
            return Map.of(token.getParameterName(), token.getToken());
        }
        return Map.of();
    }
}
