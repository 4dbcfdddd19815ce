package dev.rowqueue.console;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The console's JSON writer: RFC 8259 output, escapes that keep it valid UTF-8 and inert as markup, misuse refused. */
class JsonTest {

    @Test
    void writes_nested_objects_and_arrays_with_commas_in_the_right_places() {
        Json j = Json.object().field("a", 1).field("b", "x").field("c", true).name("d").nullValue()
                .name("e").beginArray().value(1).value("two").beginObject().endObject().beginArray().endArray()
                .endArray().field("t", Instant.parse("2026-11-25T10:00:00Z")).field("n", (String) null).endObject();
        assertEquals("{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":null,\"e\":[1,\"two\",{},[]],"
                + "\"t\":\"2026-11-25T10:00:00Z\",\"n\":null}", j.toString());
    }

    @Test
    void escapes_quotes_backslashes_controls_markup_separators_and_lone_surrogates() {
        String s = "\"\\/\n\r\t\b\f\u0000\u001f<script>&\u2028\u2029é😀\ud800x";
        assertEquals("{\"s\":\"\\\"\\\\/\\n\\r\\t\\b\\f\\u0000\\u001f\\u003cscript\\u003e\\u0026\\u2028\\u2029é😀"
                + "\\ud800x\"}", Json.object().field("s", s).endObject().toString());
        assertEquals("{\"k\\u003c\":1}", Json.object().field("k<", 1).endObject().toString(), "names too");
    }

    @Test
    void refuses_what_would_not_be_json() {
        assertThrows(IllegalStateException.class, () -> Json.object().value(1), "a value without a name");
        assertThrows(IllegalStateException.class, () -> Json.object().name("a").name("b"));
        assertThrows(IllegalStateException.class, () -> Json.object().endArray());
        assertThrows(IllegalStateException.class, () -> Json.object().toString(), "unclosed");
        assertThrows(IllegalStateException.class, () -> Json.object().endObject().beginObject(), "two documents");
        assertThrows(IllegalStateException.class, () -> new Json().beginArray().name("a"));
    }
}
