package dev.rowqueue.jooq;

import org.jooq.SQLDialect;

/** The jOOQ binding on H2 in memory. */
class H2JooqTransactionTest extends JooqTransactionContract {
    @Override
    JooqTarget open() {
        return JooqTarget.of("H2", SQLDialect.H2, "jdbc:h2:mem:jooq_transactions;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
