package dev.rowqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.util.Locale;

/** The databases the benchmarks know. */
final class Targets {
    private Targets() {
    }

    /** Connections: one per client thread at most, plus room for setup and peers. */
    static final int POOL = 24;

    static HikariDataSource pool(String url, String user, String password) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        if (user != null) {
            c.setUsername(user);
            c.setPassword(password);
        }
        c.setMaximumPoolSize(POOL);
        c.setMinimumIdle(POOL);
        c.setPoolName("bench");
        return new HikariDataSource(c);
    }

    static BenchTarget create(String name) throws Exception {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "h2" -> h2();
            default -> throw new IllegalArgumentException("unknown target '" + name + "'; known: h2");
        };
    }

    static BenchTarget h2() {
        HikariDataSource ds = pool("jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", "");
        return new BenchTarget() {
            @Override
            public String name() {
                return "H2 " + org.h2.engine.Constants.VERSION + " (in memory)";
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public void close() {
                ds.close();
            }
        };
    }
}
