package dev.rowqueue.mysql;

import java.util.ArrayList;
import java.util.List;

/**
 * Payloads written by multi-row statements ({@code INSERT ... VALUES (...), (...)}), cut into chunks so that one
 * statement stays far below {@code max_allowed_packet}.
 */
final class Chunks {

    /** Rows per statement. */
    static final int MAX_ROWS = 100;
    /** Payload characters per statement (at most 3 bytes each in UTF-8, about 3 MB). */
    static final long MAX_CHARS = 1_000_000;

    private Chunks() {
    }

    /**
     * @param payloads the payloads
     * @param from     the index of the first payload to write
     * @return the indexes {@code from} to {@code payloads.size() - 1}, in order, in chunks of at most
     *         {@value #MAX_ROWS} rows and {@value #MAX_CHARS} characters (one chunk at least, empty if there is
     *         nothing to write)
     */
    static List<List<Integer>> of(List<String> payloads, int from) {
        List<List<Integer>> chunks = new ArrayList<>();
        List<Integer> chunk = new ArrayList<>();
        long chars = 0;
        for (int i = from; i < payloads.size(); i++) {
            if (!chunk.isEmpty() && (chunk.size() == MAX_ROWS || chars + payloads.get(i).length() > MAX_CHARS)) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                chars = 0;
            }
            chunk.add(i);
            chars += payloads.get(i).length();
        }
        chunks.add(chunk);
        return chunks;
    }
}
