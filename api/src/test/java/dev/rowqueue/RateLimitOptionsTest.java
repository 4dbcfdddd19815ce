package dev.rowqueue;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rate limits are refused before any SQL when they cannot mean anything; rotate is refused under one. */
class RateLimitOptionsTest {

    @Test
    void limits_without_a_meaning_are_refused() {
        WorkQueueOptions o = WorkQueueOptions.defaults();
        assertThat(o.rateLimit()).isZero();
        assertThat(o.rateWindow()).isEqualTo(Duration.ZERO);
        assertThat(o.withRateLimit(0, Duration.ZERO)).isEqualTo(o);
        assertThatThrownBy(() -> o.withRateLimit(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> o.withRateLimit(5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> o.withRateLimit(5, Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 ms");
        assertThatThrownBy(() -> o.withRateLimit(5, Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> o.withRateLimit(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rateLimit");
        assertThatThrownBy(() -> o.withRateLimit(WorkQueueOptions.MAX_RATE_LIMIT + 1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rateLimit");
        assertThatThrownBy(() -> o.withRateLimit(5, null)).isInstanceOf(NullPointerException.class);
        assertThat(o.withRateLimit(WorkQueueOptions.MAX_RATE_LIMIT, Duration.ofDays(1)).rateLimit())
                .isEqualTo(WorkQueueOptions.MAX_RATE_LIMIT);
    }

    @Test
    void rotate_is_refused_on_a_rate_limited_handle_before_any_sql() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:rate_limit_options;DB_CLOSE_DELAY=-1");
        try (RowQueues rq = RowQueues.builder(h2).build()) {
            WorkQueue q = rq.workQueue("rated", WorkQueueOptions.defaults().withRateLimit(5, Duration.ofSeconds(1)));
            assertThatThrownBy(() -> q.rotate("c", 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("rate limit");
        }
    }
}
