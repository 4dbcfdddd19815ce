package dev.rowqueue.oracle;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Sql;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.OptionalLong;

/**
 * Runs an anonymous PL/SQL block through standard JDBC ({@link CallableStatement}, no driver classes) and reads one
 * NUMBER result from an {@code IN OUT} bind. The block is one call to the server: one round trip, and in auto-commit
 * mode the driver commits with it.
 */
final class PlSqlCall {

    private final Sql block;
    private final String result;
    private final int resultIndex;

    /**
     * @param block  the block, with named parameters
     * @param result the name of the parameter the block assigns its result to ({@code :result := v;}); it must occur
     *               exactly once
     */
    PlSqlCall(Sql block, String result) {
        this.block = block;
        this.result = result;
        List<String> names = block.parameters();
        int index = names.indexOf(result);
        if (index < 0 || names.lastIndexOf(result) != index) {
            throw new IllegalArgumentException("the result parameter :" + result + " must occur exactly once in "
                    + block.text());
        }
        this.resultIndex = index + 1;
    }

    /** @return the block */
    Sql sql() {
        return block;
    }

    /** Binds the block's input parameters. */
    @FunctionalInterface
    interface Inputs {
        /**
         * @param b the binder, with {@code :now} and the result already bound
         * @throws SQLException from the driver
         */
        void bind(Sql.Binder b) throws SQLException;
    }

    /**
     * @param c       a connection
     * @param dialect binds {@code :now} if the block uses it
     * @param inputs  binds the other parameters
     * @return the result, or empty if the block left it NULL
     * @throws SQLException from the driver, including errors the block raised
     */
    OptionalLong call(Connection c, Dialect dialect, Inputs inputs) throws SQLException {
        try (CallableStatement cs = c.prepareCall(block.jdbc())) {
            Sql.Binder b = dialect.bind(block, cs).set(result, 0L); // an IN OUT bind: the block overwrites it
            inputs.bind(b);
            b.done();
            cs.registerOutParameter(resultIndex, Types.BIGINT);
            cs.execute();
            long value = cs.getLong(resultIndex);
            return cs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
        }
    }
}
