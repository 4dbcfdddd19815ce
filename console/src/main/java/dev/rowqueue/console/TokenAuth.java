package dev.rowqueue.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The console's own credential: one secret token. Scripts send it as {@code Authorization: Bearer}; a browser sends
 * it once to the sign-in form and gets a session: a random id in an HttpOnly, SameSite=Strict cookie (the token is
 * never in a cookie), with its own CSRF token. Tokens and session ids are compared in constant time (as SHA-256
 * digests, so lengths do not show either). Sessions live in memory: they end after {@link #IDLE} without a request,
 * after {@link #LIFETIME} in any case, on sign-out, and with the process.
 */
final class TokenAuth {
    /** The shortest token accepted. */
    static final int MIN_TOKEN_LENGTH = 16;
    /** A session unused this long ends. */
    static final long IDLE = 60 * 60_000L;
    /** A session ends this long after sign-in. */
    static final long LIFETIME = 12 * 60 * 60_000L;
    /** At most this many sessions; the least recently used goes first. */
    static final int MAX_SESSIONS = 1000;
    /** At most this many failed sign-ins per minute from one address; more are refused without a check. */
    static final int MAX_FAILURES_PER_MINUTE = 20;
    /** Addresses whose failures are remembered; the least recently failing is forgotten first. */
    static final int MAX_ADDRESSES = 10_000;
    /** The session cookie. */
    static final String COOKIE = "rowqueue_console";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] tokenDigest;
    private final String tokenId;
    private final AtomicLong sessionNumbers = new AtomicLong();
    /** Session id digest (hex) to session, in access order. */
    private final LinkedHashMap<String, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);
    /** Recent failed sign-ins by client address, in access order. */
    private final LinkedHashMap<String, Deque<Long>> failures = new LinkedHashMap<>(16, 0.75f, true);

    /** A signed-in browser. */
    record Session(long number, String csrfToken, long createdAt, long lastSeen) {
        Session touched(long now) {
            return new Session(number, csrfToken, createdAt, now);
        }
    }

    /** A session just created, and the cookie value that names it. */
    record SignIn(String cookieValue, Operator operator) {
    }

    TokenAuth(String token) {
        if (token == null || token.length() < MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException("the console token must be at least " + MIN_TOKEN_LENGTH
                    + " characters long" + (token == null ? "" : ", got " + token.length()));
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("the console token must be printable ASCII without spaces");
        }
        this.tokenDigest = sha256(token);
        this.tokenId = "token sha256:" + HexFormat.of().formatHex(tokenDigest, 0, 4);
    }

    /** @return a new random token: 32 bytes from {@link SecureRandom}, base64url (43 characters) */
    static String randomToken() {
        return random(32);
    }

    private static String random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param a a secret
     * @param b another
     * @return whether they are equal, in time that depends on neither
     */
    static boolean same(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        return MessageDigest.isEqual(sha256(a), sha256(b));
    }

    /** @return how the audit log names the token */
    String tokenId() {
        return tokenId;
    }

    /**
     * @param presented what a client sent
     * @return whether it is the token
     */
    boolean isToken(String presented) {
        return presented != null && MessageDigest.isEqual(tokenDigest, sha256(presented));
    }

    /** @return the operator of a bearer request */
    Operator bearer() {
        return new Operator(tokenId, false, null);
    }

    /**
     * @param address the client's address
     * @return whether another sign-in attempt from it may be checked now (fewer than {@link #MAX_FAILURES_PER_MINUTE}
     *         failures from it in the last minute)
     */
    synchronized boolean mayTry(String address) {
        Deque<Long> recent = failures.get(address);
        if (recent == null) {
            return true;
        }
        long now = System.currentTimeMillis();
        while (!recent.isEmpty() && now - recent.peekFirst() > 60_000L) {
            recent.removeFirst();
        }
        if (recent.isEmpty()) {
            failures.remove(address);
        }
        return recent.size() < MAX_FAILURES_PER_MINUTE;
    }

    /**
     * @param address the client's address, whose sign-in just failed
     */
    synchronized void failed(String address) {
        failures.computeIfAbsent(address, a -> new ArrayDeque<>()).addLast(System.currentTimeMillis());
        while (failures.size() > MAX_ADDRESSES) {
            Iterator<String> eldest = failures.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }

    /** @return a new session, its cookie value (the session id) and its operator */
    synchronized SignIn signIn() {
        long now = System.currentTimeMillis();
        expire(now);
        while (sessions.size() >= MAX_SESSIONS) {
            Iterator<String> eldest = sessions.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
        String id = random(32);
        Session s = new Session(sessionNumbers.incrementAndGet(), random(32), now, now);
        sessions.put(key(id), s);
        return new SignIn(id, operator(s));
    }

    /**
     * @param cookieValue a session cookie's value
     * @return the session's operator, or {@code null} if it names no live session
     */
    synchronized Operator session(String cookieValue) {
        if (cookieValue == null || cookieValue.isEmpty() || cookieValue.length() > 100) {
            return null;
        }
        long now = System.currentTimeMillis();
        expire(now);
        String key = key(cookieValue);
        Session s = sessions.get(key);
        if (s == null) {
            return null;
        }
        sessions.put(key, s.touched(now));
        return operator(s);
    }

    /**
     * Ends a session.
     *
     * @param cookieValue its cookie's value
     */
    synchronized void signOut(String cookieValue) {
        if (cookieValue != null) {
            sessions.remove(key(cookieValue));
        }
    }

    /** @return how many sessions are live */
    synchronized int sessions() {
        expire(System.currentTimeMillis());
        return sessions.size();
    }

    private void expire(long now) {
        sessions.values().removeIf(s -> now - s.lastSeen() > IDLE || now - s.createdAt() > LIFETIME);
    }

    private Operator operator(Session s) {
        return new Operator("session " + s.number() + " (" + tokenId + ")", true, s.csrfToken());
    }

    /**
     * Sessions are kept by the SHA-256 of their id: a heap dump shows no usable cookie, and the lookup's timing depends
     * on a digest that a client cannot steer toward a live id.
     */
    private static String key(String id) {
        return HexFormat.of().formatHex(sha256(id));
    }
}
