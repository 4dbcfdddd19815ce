package dev.rowqueue.support;

import dev.rowqueue.spi.SqlErrorKind;

import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;

/**
 * How a database reports errors: which {@link SqlErrorKind} a driver exception is, its SQLState, and whether a
 * connection error proves the statement never reached the server. The base class ({@link #STANDARD}) knows SQL's
 * standard SQLState classes, common vendor states and the JDBC exception subclasses; a dialect whose database says
 * more with vendor codes extends it and overrides {@link #classifyOne} (falling back to {@code super}), and where it
 * must, {@link #sqlState} and {@link #failedBeforeSending}.
 */
public class SqlErrors {

    /** The standard classification. */
    public static final SqlErrors STANDARD = new SqlErrors();

    /** For subclasses; the standard classification is {@link #STANDARD}. */
    protected SqlErrors() {
    }

    /**
     * Classifies a driver exception, looking through batch and chained exceptions: the first of the chain that
     * {@link #classifyOne} recognises decides.
     *
     * @param e the exception
     * @return how the core should react
     */
    public final SqlErrorKind classify(SQLException e) {
        for (SQLException x = e; x != null; x = next(x)) {
            SqlErrorKind kind = classifyOne(x);
            if (kind != SqlErrorKind.OTHER) {
                return kind;
            }
        }
        return SqlErrorKind.OTHER;
    }

    private static SQLException next(SQLException x) {
        if (x.getNextException() != null && x.getNextException() != x) {
            return x.getNextException();
        }
        return x.getCause() instanceof SQLException s && s != x ? s : null;
    }

    /**
     * Classifies one exception of a chain by SQLState and JDBC exception subclass; override to add vendor codes, and
     * fall back to {@code super}.
     *
     * @param e one exception
     * @return its kind, or {@link SqlErrorKind#OTHER}
     */
    protected SqlErrorKind classifyOne(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("40")) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (state.startsWith("08")) {
            return SqlErrorKind.CONNECTION;
        }
        switch (state) {
            case "23505":
                return SqlErrorKind.DUPLICATE_KEY;
            case "22003":
                return SqlErrorKind.NUMERIC_OVERFLOW;
            case "42P07": case "42S01": case "42S11":
                return SqlErrorKind.ALREADY_EXISTS;
            case "42P01": case "42S02":
                return SqlErrorKind.UNDEFINED_TABLE;
            case "55P03": case "HYT00":
                return SqlErrorKind.LOCK_TIMEOUT;
            case "25006": // read-only SQL-transaction: a hot standby, a read-only replica or transaction
                return SqlErrorKind.READ_ONLY;
            default:
                break;
        }
        if (e instanceof SQLTransactionRollbackException) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException) {
            return SqlErrorKind.CONNECTION;
        }
        if (e instanceof SQLTimeoutException) {
            return SqlErrorKind.LOCK_TIMEOUT;
        }
        // syntax error or access rule violation, invalid authorization: the same statement fails again
        if (state.startsWith("42") || state.startsWith("28") || e instanceof SQLSyntaxErrorException
                || e instanceof SQLInvalidAuthorizationSpecException) {
            return SqlErrorKind.REFUSED;
        }
        return SqlErrorKind.OTHER;
    }

    /**
     * The SQLState that rowqueue's exceptions ({@link dev.rowqueue.RowQueueException#sqlState()}) report for a
     * driver exception. The default is the driver's own; where the driver reports none, one is derived from the
     * {@linkplain #classify classified} kind, in the classes the drivers of other databases use: {@code HYT00} for a
     * lock wait that timed out, {@code 23505} for a duplicate key, {@code 42S02} for a missing table and {@code 42S01}
     * for one that already exists ({@code null} for the other kinds). A database may derive more from its vendor
     * codes. The core then hands the driver's exception on as the cause of an {@link SQLException} that carries the
     * derived state, message and vendor code.
     *
     * @param e a driver exception
     * @return its SQLState, or {@code null}
     */
    public String sqlState(SQLException e) {
        if (e.getSQLState() != null) {
            return e.getSQLState();
        }
        return switch (classify(e)) {
            case LOCK_TIMEOUT -> "HYT00";
            case DUPLICATE_KEY -> "23505";
            case UNDEFINED_TABLE -> "42S02";
            case ALREADY_EXISTS -> "42S01";
            default -> null;
        };
    }

    /**
     * Whether a connection error proves the statement never reached the server (so even a non-idempotent
     * auto-commit statement may be retried). The default recognises "connection does not exist" (08003) and
     * "unable to connect" (08001, 08004).
     *
     * @param e a {@link SqlErrorKind#CONNECTION} error
     * @return {@code true} if the work surely did not run
     */
    public boolean failedBeforeSending(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.equals("08003") || state.equals("08001") || state.equals("08004");
    }

    /**
     * The table a {@link SqlErrorKind#UNDEFINED_TABLE} error names, where its message says it. The core then asks the
     * catalog, on the connection the statement failed on, whether that table is there: SQLite reports a table created
     * since a pooled connection last read the schema as missing when it could not take a read lock within its busy
     * timeout to see the new schema, and the operation is then retried like the lock timeout it was. The default
     * tells no name, and a missing table is reported as such at once.
     *
     * @param e a driver exception
     * @return the name as the message gives it (perhaps qualified or quoted), or {@code null}
     */
    public String missingTable(SQLException e) {
        return null;
    }

    /**
     * Starts a classification by vendor code (and, where one code covers several errors, a fragment of the message),
     * for a driver that reports no or few SQLStates: the rules are tried in the order given, the first that matches
     * wins, and an error no rule names is classified as {@link #STANDARD} classifies it.
     *
     * @return a builder
     */
    public static VendorCodes byVendorCode() {
        return new VendorCodes();
    }

    /** A classification by vendor code, built rule by rule ({@link #byVendorCode()}). */
    public static final class VendorCodes {
        private final java.util.List<Rule> rules = new java.util.ArrayList<>();
        private String otherState;
        private Rule missingTable;

        private VendorCodes() {
        }

        /**
         * Where the name of a missing table is in the message ({@link #missingTable(SQLException)}): right after
         * {@code before}, up to a blank, a closing parenthesis or the end.
         *
         * @param code   the vendor code of the error
         * @param before the text before the name, such as {@code "no such table: "}
         * @return this builder
         */
        public VendorCodes missingTableAfter(int code, String before) {
            missingTable = new Rule(code, before, SqlErrorKind.UNDEFINED_TABLE, null);
            return this;
        }

        /**
         * @param code the vendor code
         * @param kind what an error with that code is
         * @return this builder
         */
        public VendorCodes kind(int code, SqlErrorKind kind) {
            return kind(code, "", kind);
        }

        /**
         * @param code     the vendor code
         * @param fragment text the message must contain
         * @param kind     what an error with that code and message is
         * @return this builder
         */
        public VendorCodes kind(int code, String fragment, SqlErrorKind kind) {
            rules.add(new Rule(code, fragment, kind, null));
            return this;
        }

        /**
         * The SQLState of an error with no SQLState of its own and none derived from its kind ({@link #sqlState}).
         *
         * @param code     the vendor code
         * @param fragment text the message must contain ({@code ""} for any)
         * @param state    the SQLState to report
         * @return this builder
         */
        public VendorCodes state(int code, String fragment, String state) {
            rules.add(new Rule(code, fragment, null, state));
            return this;
        }

        /**
         * @param state the SQLState of an error that no rule gives one (e.g. {@code HY000}, general error)
         * @return this builder
         */
        public VendorCodes otherState(String state) {
            otherState = state;
            return this;
        }

        /** @return the classification */
        public SqlErrors build() {
            java.util.List<Rule> all = java.util.List.copyOf(rules);
            String other = otherState;
            Rule named = missingTable;
            return new SqlErrors() {
                @Override
                public String missingTable(SQLException e) {
                    if (named == null || !named.matches(e) || classify(e) != SqlErrorKind.UNDEFINED_TABLE) {
                        return null;
                    }
                    String message = e.getMessage();
                    int from = message.indexOf(named.fragment()) + named.fragment().length();
                    int to = from;
                    while (to < message.length() && !Character.isWhitespace(message.charAt(to))
                            && message.charAt(to) != ')') {
                        to++;
                    }
                    return to > from ? message.substring(from, to) : null;
                }

                @Override
                protected SqlErrorKind classifyOne(SQLException e) {
                    for (Rule r : all) {
                        if (r.kind() != null && r.matches(e)) {
                            return r.kind();
                        }
                    }
                    return super.classifyOne(e);
                }

                @Override
                public String sqlState(SQLException e) {
                    String state = super.sqlState(e);
                    for (int i = 0; state == null && i < all.size(); i++) {
                        state = all.get(i).state() != null && all.get(i).matches(e) ? all.get(i).state() : null;
                    }
                    return state == null ? other : state;
                }
            };
        }
    }

    private record Rule(int code, String fragment, SqlErrorKind kind, String state) {
        boolean matches(SQLException e) {
            return e.getErrorCode() == code && String.valueOf(e.getMessage()).contains(fragment);
        }
    }
}
