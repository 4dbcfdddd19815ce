package dev.rowqueue.tck;

import dev.rowqueue.testkit.SimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A data source that counts the connections it opens, for the report's "connections opened" line. Give it to a pool
 * as the pool's source of physical connections: the report finds it through {@link DataSource#unwrap(Class)}, which
 * HikariCP hands on to the data source it wraps.
 */
public final class OpenedConnections extends SimpleDataSource {
    private final DataSource source;
    private final AtomicLong opened = new AtomicLong();

    /**
     * @param source where connections come from, each {@code getConnection()} a new one (e.g. through
     *               {@link java.sql.DriverManager})
     */
    public OpenedConnections(DataSource source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = source.getConnection();
        opened.incrementAndGet();
        return c;
    }

    /** @return how many connections were opened so far */
    public long opened() {
        return opened.get();
    }

    /**
     * @param dataSource a target's data source
     * @return its {@link OpenedConnections}, itself or the one it wraps, or empty when it has none
     */
    public static Optional<OpenedConnections> in(DataSource dataSource) {
        try {
            if (dataSource.isWrapperFor(OpenedConnections.class)) {
                return Optional.of(dataSource.unwrap(OpenedConnections.class));
            }
        } catch (SQLException | RuntimeException e) {
            // a data source that cannot tell: no count
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "OpenedConnections[" + source + ", opened=" + opened + "]";
    }
}
