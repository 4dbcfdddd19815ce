package dev.rowqueue.cli;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.KeyCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The migration reads and binds key columns through each side's dialect, as a dialect storing keys encoded needs
 * (Db2 stores them as bytes): here a test dialect stores every group, counter key and cursor name as "enc:" + key.
 */
class MigrationKeysTest {

    private static final String PREFIX = "enc:";

    /** Stores keys (parameters :grp, :key, :cursor) with a prefix and strips it when reading them. */
    static final class EncodedKeys extends Dialect {
        EncodedKeys(DatabaseProduct product) {
            super(product);
        }

        @Override
        public String name() {
            return "encoded-keys";
        }

        @Override
        protected KeyCodec keyCodec() {
            return new KeyCodec() {
                @Override
                public void bind(PreparedStatement ps, int index, String key) throws SQLException {
                    ps.setString(index, key == null ? null : PREFIX + key); // a job without a key: NULL
                }

                @Override
                public String read(ResultSet rs, int column) throws SQLException {
                    String stored = rs.getString(column);
                    if (stored == null) {
                        return null;
                    }
                    if (!stored.startsWith(PREFIX)) {
                        throw new SQLException("not an encoded key: " + stored);
                    }
                    return stored.substring(PREFIX.length());
                }
            };
        }
    }

    private final List<Endpoint.Opened> opened = new ArrayList<>();
    private final MigrationTargets.Factory h2 = MigrationTargets.h2("H2", null);

    private Endpoint.Opened open() throws SQLException {
        Endpoint e = h2.create();
        DialectProvider provider = new DialectProvider() {
            @Override
            public String name() {
                return "encoded-keys";
            }

            @Override
            public boolean supports(DatabaseProduct product) {
                return false;
            }

            @Override
            public Dialect create(DatabaseProduct product, Map<String, String> options) {
                return new EncodedKeys(product);
            }
        };
        RowQueues rq = RowQueues.builder(e.dataSource()).registerDialect(provider).dialect("encoded-keys").build();
        DatabaseProduct product;
        try (Connection c = e.dataSource().getConnection()) {
            product = DatabaseProduct.of(c.getMetaData());
        }
        Endpoint.Opened o = new Endpoint.Opened(e, e.dataSource(), rq, new EncodedKeys(product));
        opened.add(o);
        return o;
    }

    @AfterEach
    void release() {
        opened.forEach(o -> h2.release(o.endpoint()));
    }

    private static List<String> column(Endpoint.Opened db, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    @Test
    void keys_are_read_and_bound_through_the_dialects_also_when_resuming() throws Exception {
        Endpoint.Opened from = open();
        Endpoint.Opened to = open();
        from.rq().ring("views", 3).pushAll("article-1", List.of("alice", "bob"));
        from.rq().ring("views", 3).push("article-2", "carol");
        from.rq().counters("sales").set("Bulldozer", 13);
        WorkQueue mail = from.rq().workQueue("mail");
        mail.enqueue("hello");
        mail.rotate("sender", 1).forEach(mail::release);
        mail.enqueue("keyed", dev.rowqueue.Enqueue.defaults().withKey("tenant").unique());
        assertEquals(List.of("enc:article-1", "enc:article-1", "enc:article-2"),
                column(from, "SELECT grp FROM views ORDER BY grp, seq"), "the source stores keys encoded");

        Migration crashing = new Migration(from, to, new Migration.Options(1, false), new Migration.Listener() {
            @Override
            public void beforeCommit(String queue, String part, int batch) throws SQLException {
                if (part.equals("entries") && batch == 2) {
                    throw new SQLException("simulated crash");
                }
            }
        });
        assertThrows(SQLException.class, () -> crashing.run(crashing.select(List.of())));

        Migration resumed = new Migration(from, to, new Migration.Options(1, false), new Migration.Listener() {
        });
        MigrationReport report = resumed.run(resumed.select(List.of()));
        assertTrue(report.verified(), "every count and checksum matches");
        assertEquals(List.of("enc:article-1", "enc:article-1", "enc:article-2"),
                column(to, "SELECT grp FROM views ORDER BY grp, seq"), "decoded from the source, encoded for the"
                        + " target, once; the resumed batch started after the encoded position");
        assertEquals(List.of("enc:article-1", "enc:article-2"), column(to, "SELECT grp FROM views_head ORDER BY grp"));
        assertEquals(List.of("enc:Bulldozer"), column(to, "SELECT counter_key FROM sales"));
        assertEquals(List.of("enc:sender"), column(to, "SELECT cursor_name FROM mail_rot"));
        assertEquals(java.util.Arrays.asList(null, "enc:tenant"),
                column(to, "SELECT job_key FROM mail ORDER BY id"), "job keys are keys too");
        assertEquals(java.util.Arrays.asList(null, "enc:tenant"), column(to, "SELECT unique_key FROM mail ORDER BY id"));
        assertEquals(List.of("0", "1"), column(to, "SELECT key_seq FROM mail ORDER BY id"));
        WorkQueue moved = to.rq().workQueue("mail");
        long held = Long.parseLong(column(to, "SELECT id FROM mail WHERE job_key IS NOT NULL").get(0));
        assertEquals(held, moved.enqueue("again", dev.rowqueue.Enqueue.defaults().withKey("tenant").unique()),
                "the unique key still names the live job on the target");
    }

    /**
     * A source written by a rowqueue before keyed jobs (its jobs table of schema version 1) is read unchanged: its
     * jobs arrive without keys, and the checksums agree.
     */
    @Test
    void a_work_queue_of_schema_version_1_on_the_source_arrives_without_keys() throws Exception {
        Endpoint.Opened from = open();
        Endpoint.Opened to = open();
        from.rq().counters("sales"); // the catalog exists
        dev.rowqueue.spi.WorkTables t = dev.rowqueue.spi.WorkTables.of("legacy");
        try (Connection c = from.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String ddl : from.dialect().ddl().work(t, 1)) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO rowqueue_catalog (queue_name, kind, capacity, strategy, schema_version, created_ms)"
                    + " VALUES ('legacy', 'WORK', 0, NULL, 1, 0)");
            s.execute("INSERT INTO legacy (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ('old', 0, 0,"
                    + " 1, 0, 1)");
        }
        Migration m = new Migration(from, to, new Migration.Options(10, false), new Migration.Listener() {
        });
        MigrationReport report = m.run(m.select(List.of("legacy")));
        assertTrue(report.verified(), "every count and checksum matches");
        assertEquals(java.util.Arrays.asList((String) null), column(to, "SELECT job_key FROM legacy"));
        assertEquals(List.of("old"), column(to, "SELECT payload FROM legacy"));
        assertThrows(SQLException.class, () -> column(from, "SELECT job_key FROM legacy"),
                "the source was not changed");
    }
}
