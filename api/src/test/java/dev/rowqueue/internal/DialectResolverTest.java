package dev.rowqueue.internal;

import dev.rowqueue.RowQueues;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.portable.PortableDialect;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DialectResolverTest {

    /** A provider recognising a product by name, for tests. */
    record Named(String name, String product, int priority) implements DialectProvider {
        @Override
        public boolean supports(DatabaseProduct p) {
            return p.productName().equals(product);
        }

        @Override
        public Dialect create(DatabaseProduct p, Map<String, String> options) {
            return new Dialect(p) {
                @Override
                public String name() {
                    return Named.this.name;
                }
            };
        }
    }

    private static final DatabaseProduct H2 = DatabaseProduct.assumed("H2", 2, 5);

    @Test
    void without_a_matching_dialect_the_portable_one_is_used() {
        Dialect d = DialectResolver.resolve(List.of(), null, DatabaseProduct.assumed("NoSuchDB", 1, 0), Map.of());
        assertThat(d).isInstanceOf(PortableDialect.class);
    }

    @Test
    void an_explicitly_registered_dialect_wins() {
        Dialect d = DialectResolver.resolve(List.of(new Named("mine", "H2", -100)), null, H2, Map.of());
        assertThat(d.name()).isEqualTo("mine");
    }

    @Test
    void a_dialect_can_be_forced_by_name_and_unknown_names_list_the_known_ones() {
        assertThat(DialectResolver.resolve(List.of(), "portable", H2, Map.of()).name()).isEqualTo("portable");
        assertThatThrownBy(() -> DialectResolver.resolve(List.of(), "nope", H2, Map.of()))
                .hasMessageContaining("no dialect named 'nope'").hasMessageContaining("portable");
    }

    @Test
    void the_portable_dialect_refuses_options() {
        assertThatThrownBy(() -> DialectResolver.resolve(List.of(), "portable", H2, Map.of("x", "y")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x");
    }

    @Test
    void the_builder_reads_the_database_and_reports_what_it_chose() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:resolver");
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            // the api module has no H2 dialect on its class path: detection falls back to portable
            assertThat(rq.database().dialect()).isEqualTo("portable");
            assertThat(rq.database().productName()).isEqualTo("H2");
            assertThat(rq.database().maxPayloadLength()).isEqualTo(4000);
        }
        try (RowQueues rq = RowQueues.builder(ds).registerDialect(new Named("explicit", "H2", 0)).build()) {
            assertThat(rq.database().dialect()).isEqualTo("explicit");
        }
    }
}
