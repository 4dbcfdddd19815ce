package dev.rowqueue.spi;

import java.util.Objects;

/**
 * A session setting a dialect's SQL depends on, and what the dialect does about it ({@link Dialect#sessionSettings()}).
 * Servers let a DBA change how SQL parses or behaves for every session (MariaDB's {@code sql_mode=ORACLE}, MySQL's
 * {@code init_connect}, PostgreSQL's {@code ALTER DATABASE ... SET}); a dialect names each setting it relies on, and
 * either pins it on the connections it uses or refuses, at {@code build()}, a session where it has another value.
 *
 * @param name     the setting as the database names it, e.g. {@code sql_mode}
 * @param handling what the dialect does about it
 * @param value    the value it pins, or the value it needs
 * @param why      what depends on it, for documentation and refusals
 */
public record SessionSetting(String name, Handling handling, String value, String why) {

    /** What a dialect does about a setting. */
    public enum Handling {
        /** Set by the dialect once per physical connection ({@link Dialect#prepareConnection}), whatever it was. */
        PINNED,
        /** Set by the core through JDBC on every operation that needs it (auto-commit, isolation). */
        SET_THROUGH_JDBC,
        /** Read at {@code build()} ({@link Dialect#checkSession}); another value is refused. */
        REFUSED_OTHERWISE
    }

    /**
     * @param name     the setting
     * @param handling what the dialect does about it
     * @param value    the value pinned or needed
     * @param why      what depends on it
     */
    public SessionSetting {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(handling, "handling");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(why, "why");
    }

    /**
     * The exception a dialect throws from {@link Dialect#checkSession} when the session has a value it cannot run
     * with.
     *
     * @param actual the value the session has, as the database said
     * @param advice what to do about it
     * @return an exception naming the setting, its value and what depends on it
     */
    public dev.rowqueue.SessionSettingException refuse(String actual, String advice) {
        return new dev.rowqueue.SessionSettingException(name, actual, "the session has " + name + " = '" + actual
                + "', but rowqueue needs " + value + ": " + why + (advice == null || advice.isEmpty() ? "" : ". "
                + advice));
    }
}
