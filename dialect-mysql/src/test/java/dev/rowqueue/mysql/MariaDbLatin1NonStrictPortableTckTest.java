package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

import java.util.List;

/**
 * The whole kit against the portable dialect on a MariaDB server whose default character set is latin1 and which is
 * not strict ({@code sql_mode=''}), as old installations are, with sessions that keep it so (MariaDB Connector/J adds
 * {@code STRICT_TRANS_TABLES} to a session unless {@code jdbcCompliantTruncation=false}): a text column of the
 * default character set stores {@code ?} for each character it lacks, without an error, so the probes must find a
 * column type that gives any Unicode text back unchanged.
 */
class MariaDbLatin1NonStrictPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        TckTargets.Target server = MySqlTargets.dedicated("character_set_server=latin1, sql_mode=''", List.of(
                "--character-set-server=latin1", "--collation-server=latin1_swedish_ci", "--sql-mode="),
                "?jdbcCompliantTruncation=false");
        return server.withDialect("portable", server.name() + ", dialect portable");
    }
}
