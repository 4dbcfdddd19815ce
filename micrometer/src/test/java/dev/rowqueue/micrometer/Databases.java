package dev.rowqueue.micrometer;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The databases the tests run on: H2 in memory, and the testkit's embedded PostgreSQL server. */
final class Databases {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private Databases() {
    }

    /** @return a fresh in-memory H2 database */
    static DataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:metrics_" + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    /**
     * A fresh database on the JVM's embedded PostgreSQL (the testkit's fixture, the newest binaries the build pins).
     *
     * @return a pool of 12 on it; close it after
     */
    static HikariDataSource postgres() {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared();
        return server.pool(server.newDatabase("metrics"), 12);
    }

    /** A data source that refuses connections while {@link #down} is set. */
    static final class Switched {
        final AtomicBoolean down = new AtomicBoolean();
        final DataSource ds;

        Switched(DataSource target) {
            ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                    new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection") && down.get()) {
                            throw new SQLTransientConnectionException("connection refused (test)", "08001");
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
