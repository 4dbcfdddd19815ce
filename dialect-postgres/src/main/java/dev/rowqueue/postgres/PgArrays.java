package dev.rowqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/** Arrays bound as one parameter, so that a batch of any size is one statement with a fixed text. */
final class PgArrays {
    private PgArrays() {
    }

    /**
     * @param c      the connection
     * @param values texts
     * @return a {@code text[]}
     * @throws SQLException from the driver
     */
    static Array texts(Connection c, List<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray());
    }

    /**
     * @param c      the connection
     * @param values numbers
     * @return a {@code bigint[]}
     * @throws SQLException from the driver
     */
    static Array longs(Connection c, List<Long> values) throws SQLException {
        return c.createArrayOf("bigint", values.toArray());
    }

    /**
     * @param c      the connection
     * @param values numbers
     * @return a {@code bigint[]}
     * @throws SQLException from the driver
     */
    static Array longs(Connection c, long[] values) throws SQLException {
        return c.createArrayOf("bigint", Arrays.stream(values).boxed().toArray());
    }

    /**
     * The rows of a {@code text[]} parameter with their 1-based positions, as a FROM item {@code p(payload, ord)}.
     *
     * @param parameter the parameter name
     * @return {@code unnest(CAST(:parameter AS TEXT[])) WITH ORDINALITY AS p(payload, ord)}
     */
    static String payloadRows(String parameter) {
        return "unnest(CAST(:" + parameter + " AS TEXT[])) WITH ORDINALITY AS p(payload, ord)";
    }
}
