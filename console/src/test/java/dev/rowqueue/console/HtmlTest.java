package dev.rowqueue.console;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The page writer escapes all data: in content and in attribute values. */
class HtmlTest {

    @Test
    void text_and_attribute_values_are_escaped() {
        String evil = "<script>alert('x')</script> & \"quoted\"";
        Html h = new Html().open("a", "href", "/q?x=" + evil, "title", null, "hidden", "").text(evil).close("a");
        assertEquals("<a href=\"/q?x=&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;\""
                + " hidden>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;</a>", h.toString());
    }

    @Test
    void plain_text_is_left_as_it_is() {
        assertEquals("mail · 42 jobs é", Html.escape("mail · 42 jobs é"));
        assertEquals("", Html.escape(null));
    }
}
