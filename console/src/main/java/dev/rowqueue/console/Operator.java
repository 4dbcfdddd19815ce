package dev.rowqueue.console;

import java.util.Objects;

/**
 * Who sent a request, as far as the console needs to know.
 *
 * @param id        names the credential in the audit log, never its secret: {@code token sha256:1a2b3c4d} (the
 *                  first 8 hex digits of the token's SHA-256), {@code session 3 (token sha256:1a2b3c4d)}, or a
 *                  container's user, {@code user 'alice'}
 * @param ambient   whether the browser attaches the credential by itself (a session cookie, HTTP Basic): then every
 *                  state change must carry {@code csrfToken}. {@code false} for {@code Authorization: Bearer}, which a
 *                  browser never sends on its own
 * @param csrfToken the token forms must carry when {@code ambient}; {@code null} otherwise
 */
public record Operator(String id, boolean ambient, String csrfToken) {
    /** Validates the components. */
    public Operator {
        Objects.requireNonNull(id, "id");
        if (ambient && (csrfToken == null || csrfToken.isEmpty())) {
            throw new IllegalArgumentException("an ambient credential needs a CSRF token");
        }
    }
}
