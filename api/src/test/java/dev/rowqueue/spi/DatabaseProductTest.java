package dev.rowqueue.spi;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseProductTest {

    static DatabaseMetaData metadata(String product, String version, int major, int minor) {
        return (DatabaseMetaData) Proxy.newProxyInstance(DatabaseProductTest.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class}, (p, m, a) -> switch (m.getName()) {
                    case "getDatabaseProductName" -> product;
                    case "getDatabaseProductVersion" -> version;
                    case "getDatabaseMajorVersion" -> major;
                    case "getDatabaseMinorVersion" -> minor;
                    case "getDriverName" -> "driver";
                    case "getDriverVersion" -> "1.0";
                    case "getURL" -> "jdbc:x://host/db";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void mariadb_behind_a_mysql_driver_is_recognised_with_its_own_version() throws Exception {
        DatabaseProduct p = DatabaseProduct.of(metadata("MySQL", "5.5.5-10.11.6-MariaDB-0+deb12u1", 5, 5));
        assertThat(p.isMariaDb()).isTrue();
        assertThat(p.majorVersion()).isEqualTo(10);
        assertThat(p.minorVersion()).isEqualTo(11);
        assertThat(p.atLeast(10, 6)).isTrue();
    }

    @Test
    void mysql_is_not_mariadb() throws Exception {
        DatabaseProduct p = DatabaseProduct.of(metadata("MySQL", "8.4.3", 8, 4));
        assertThat(p.isMariaDb()).isFalse();
        assertThat(p.atLeast(8, 0)).isTrue();
        assertThat(p.atLeast(8, 5)).isFalse();
        assertThat(p.atLeast(9, 0)).isFalse();
    }

    @Test
    void mariadb_by_product_name() throws Exception {
        assertThat(DatabaseProduct.of(metadata("MariaDB", "11.4.2-MariaDB", 11, 4)).isMariaDb()).isTrue();
    }

    @Test
    void an_assumed_product_renders_ddl_without_a_connection() {
        DatabaseProduct p = DatabaseProduct.assumed("PostgreSQL", 16, 0);
        assertThat(p.describe()).isEqualTo("PostgreSQL 16.0");
        assertThat(p.url()).isEmpty();
    }
}
