package dev.rowqueue.postgres;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.util.HashMap;
import java.util.Map;

/**
 * Recognises PostgreSQL {@value PostgresDialect#OLDEST_MAJOR} and later by {@code DatabaseMetaData} ("PostgreSQL" as
 * product name). Older servers are left to the portable dialect. Options: see {@link PostgresDialect}.
 */
public final class PostgresDialectProvider implements DialectProvider {

    @Override
    public String name() {
        return PostgresDialect.NAME;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.productName().equalsIgnoreCase("PostgreSQL")
                && product.majorVersion() >= PostgresDialect.OLDEST_MAJOR;
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        Map<String, String> left = new HashMap<>(options);
        String wakeup = left.remove(PostgresDialect.OPTION_WAKEUP);
        boolean listen;
        if (wakeup == null || wakeup.equals("listen")) {
            listen = true;
        } else if (wakeup.equals("poll")) {
            listen = false;
        } else {
            throw new IllegalArgumentException("dialect option " + PostgresDialect.OPTION_WAKEUP
                    + " must be 'listen' or 'poll', got '" + wakeup + "'");
        }
        String notifyOption = left.remove(PostgresDialect.OPTION_NOTIFY);
        if (notifyOption != null && !notifyOption.equals("true") && !notifyOption.equals("false")) {
            throw new IllegalArgumentException("dialect option " + PostgresDialect.OPTION_NOTIFY
                    + " must be 'true' or 'false', got '" + notifyOption + "'");
        }
        boolean notify = !"false".equals(notifyOption);
        long pollMillis = PostgresDialect.DEFAULT_WAKEUP_POLL_MILLIS;
        String poll = left.remove(PostgresDialect.OPTION_WAKEUP_POLL_MILLIS);
        if (poll != null) {
            try {
                pollMillis = Long.parseLong(poll.strip());
            } catch (NumberFormatException e) {
                pollMillis = -1;
            }
            if (pollMillis < 1) {
                throw new IllegalArgumentException("dialect option " + PostgresDialect.OPTION_WAKEUP_POLL_MILLIS
                        + " must be a positive number of milliseconds, got '" + poll + "'");
            }
        }
        if (!left.isEmpty()) {
            throw new IllegalArgumentException("the postgresql dialect has no options " + left.keySet() + "; it knows "
                    + PostgresDialect.OPTION_WAKEUP + ", " + PostgresDialect.OPTION_WAKEUP_POLL_MILLIS + " and "
                    + PostgresDialect.OPTION_NOTIFY);
        }
        if (listen) {
            PgWakeups.requireDriver();
        }
        return new PostgresDialect(product, listen, notify, pollMillis);
    }
}
