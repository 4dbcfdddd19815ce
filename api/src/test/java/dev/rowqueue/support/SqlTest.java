package dev.rowqueue.support;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlTest {

    @Test
    void named_parameters_become_positional_in_order_and_may_repeat() {
        Sql sql = Sql.of("UPDATE t SET a = :a, b = :b WHERE a < :a");
        assertThat(sql.jdbc()).isEqualTo("UPDATE t SET a = ?, b = ? WHERE a < ?");
        assertThat(sql.parameters()).containsExactly("a", "b", "a");
        assertThat(sql.has("b")).isTrue();
        assertThat(sql.has("c")).isFalse();
    }

    @Test
    void quoted_text_comments_and_casts_are_left_alone() {
        Sql sql = Sql.of("SELECT ':no', \"col:x\", 'it''s :not' FROM t -- :comment\nWHERE x = :yes::bigint");
        assertThat(sql.parameters()).containsExactly("yes");
        assertThat(sql.jdbc()).isEqualTo("SELECT ':no', \"col:x\", 'it''s :not' FROM t -- :comment\nWHERE x = ?::bigint");
    }

    @Test
    void positional_markers_and_unterminated_quotes_are_programming_errors() {
        assertThatThrownBy(() -> Sql.of("SELECT ? FROM t")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Sql.of("SELECT 'open FROM t")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void every_parameter_must_be_bound_before_execution() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:sqltest");
        Sql sql = Sql.of("SELECT CAST(:a AS BIGINT) + CAST(:b AS BIGINT), CAST(:s AS VARCHAR(10))");
        try (Connection c = ds.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder binder = sql.bind(ps).set("a", 40L);
            assertThatThrownBy(binder::done).hasMessageContaining("[b, s]");
            assertThatThrownBy(() -> binder.set("zzz", 1L)).hasMessageContaining(":zzz");
            binder.set("b", 2L).set("s", (String) null).done();
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(42L);
                assertThat(rs.getString(2)).isNull();
            }
        }
    }

    @Test
    void an_array_binds_as_one_parameter_wherever_its_name_appears() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:sqlarray");
        Sql sql = Sql.of("SELECT CARDINALITY(CAST(:xs AS VARCHAR(10) ARRAY)), CARDINALITY(CAST(:xs AS VARCHAR(10) ARRAY))");
        try (Connection c = ds.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            sql.bind(ps).setArray("xs", c.createArrayOf("VARCHAR", new Object[] {"a", "b", "c"})).done();
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(3);
                assertThat(rs.getInt(2)).isEqualTo(3);
            }
        }
    }

    @Test
    void parameter_lists_render_and_bind_ids() {
        assertThat(Jdbc.parameterList(3, "id")).isEqualTo(":id0, :id1, :id2");
        assertThat(Sql.of("SELECT x FROM t WHERE id IN (" + Jdbc.parameterList(2, "id") + ")").parameters())
                .isEqualTo(List.of("id0", "id1"));
    }
}
