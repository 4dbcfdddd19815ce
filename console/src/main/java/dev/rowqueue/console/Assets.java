package dev.rowqueue.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's static files: one stylesheet, one small script and an icon, read from the jar once. They hold no
 * data, so they are served without a credential (the sign-in page needs the stylesheet).
 */
final class Assets {
    private static final Map<String, String> TYPES = Map.of(
            "console.css", "text/css; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "icon.svg", "image/svg+xml");
    private static final Map<String, byte[]> FILES = load();

    private Assets() {
    }

    private static Map<String, byte[]> load() {
        java.util.HashMap<String, byte[]> m = new java.util.HashMap<>();
        for (String name : TYPES.keySet()) {
            try (InputStream in = Assets.class.getResourceAsStream("assets/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource dev/rowqueue/console/assets/" + name);
                }
                m.put(name, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Map.copyOf(m);
    }

    static ConsoleResponse get(String name) {
        byte[] body = FILES.get(name);
        if (body == null) {
            return ConsoleResponse.text(404, "Nothing here.\n");
        }
        return new ConsoleResponse(200, TYPES.get(name), body).header("Cache-Control", "public, max-age=300");
    }
}
