package dev.rowqueue.internal;

import dev.rowqueue.InvalidNameException;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValidationTest {

    @Test
    void queue_names_are_folded_to_lower_case() {
        assertThat(Validation.queueName("Recent_Views2")).isEqualTo("recent_views2");
    }

    @Test
    void names_that_are_not_safe_identifiers_everywhere_are_refused_with_the_rule() {
        assertThatThrownBy(() -> Validation.queueName("order")).isInstanceOf(InvalidNameException.class)
                .hasMessageContaining("reserved word");
        assertThatThrownBy(() -> Validation.queueName("a".repeat(26))).hasMessageContaining("at most 25");
        assertThatThrownBy(() -> Validation.queueName("a-b")).hasMessageContaining("[A-Za-z][A-Za-z0-9_]*");
        assertThatThrownBy(() -> Validation.queueName("rowqueue_x")).hasMessageContaining("prefix");
        assertThatThrownBy(() -> Validation.queueName("bad\nname")).hasMessageContaining("\\u000a");
    }

    @Test
    void the_reserved_word_list_covers_every_supported_database() {
        for (String word : List.of("select", "user", "rownum", "limit", "value", "level", "group", "key", "rows",
                "size", "uid", "sysdate", "returning", "qualify", "_rowid_")) {
            assertThat(Validation.isReserved(word)).as(word).isTrue();
        }
        for (String fine : List.of("recent_views", "outgoing_mail", "booksales", "jobs", "events")) {
            assertThat(Validation.isReserved(fine)).as(fine).isFalse();
        }
    }

    @Test
    void text_must_be_valid_unicode_without_nul() {
        assertThat(Validation.payload("emoji 😀 ok", 100)).isEqualTo("emoji 😀 ok");
        assertThatThrownBy(() -> Validation.payload("a\u0000b", 100)).hasMessageContaining("NUL");
        assertThatThrownBy(() -> Validation.payload("\uD83D", 100)).hasMessageContaining("surrogate");
        assertThatThrownBy(() -> Validation.payload("\uDE00x", 100)).hasMessageContaining("surrogate");
        assertThatThrownBy(() -> Validation.payload("abc", 2)).hasMessageContaining("at most 2");
    }

    @Test
    void a_batch_is_checked_whole_before_anything_is_written() {
        assertThatThrownBy(() -> Validation.payloads(Arrays.asList("a", null), 10))
                .hasMessageContaining("payload #1").hasMessageContaining("nothing was written");
        assertThatThrownBy(() -> Validation.payloads(List.of(), 10)).hasMessageContaining("empty");
    }

    @Test
    void durations_are_rounded_up_to_milliseconds() {
        assertThat(Validation.notNegative("d", Duration.ofNanos(1))).isEqualTo(1);
        assertThat(Validation.notNegative("d", Duration.ZERO)).isZero();
        assertThat(Validation.positive("d", Duration.ofMillis(1500))).isEqualTo(1500);
        assertThatThrownBy(() -> Validation.positive("lease", Duration.ZERO)).hasMessageContaining("lease");
        assertThatThrownBy(() -> Validation.notNegative("d", Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessageContaining("too long");
    }

    @Test
    void error_texts_are_truncated_without_breaking_characters() {
        assertThat(Validation.errorText(null, 5)).isNull();
        assertThat(Validation.errorText("abcdefgh", 5)).isEqualTo("abcde");
        assertThat(Validation.errorText("abcd😀", 5)).isEqualTo("abcd");
        assertThat(Validation.errorText("a\u0000b\uD800", 10)).isEqualTo("a\uFFFDb\uFFFD");
    }

    @Test
    void retry_delays_double_up_to_the_cap() {
        WorkQueueOptions o = WorkQueueOptions.defaults().withRetryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5));
        assertThat(o.retryDelay(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.retryDelay(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.retryDelay(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(o.retryDelay(4)).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.retryDelay(1000)).isEqualTo(Duration.ofSeconds(5));
    }
}
