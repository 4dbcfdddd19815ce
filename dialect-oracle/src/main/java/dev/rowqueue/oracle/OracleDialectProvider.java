package dev.rowqueue.oracle;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Recognises Oracle Database ("Oracle" as product name). Version gates, from {@code DatabaseMetaData}:
 * <ul>
 *   <li>19c and later: the versions this dialect targets (23ai also gets {@code IF NOT EXISTS} DDL);</li>
 *   <li>12.1 to 18: accepted with a warning; every feature used exists since 12.1 (identity columns,
 *       {@code FETCH FIRST}), but these releases are not a target;</li>
 *   <li>11.2 and older: refused with a clear error, since they lack identity columns and {@code FETCH FIRST}; the
 *       portable dialect cannot serve Oracle either (it needs {@code BIGINT}).</li>
 * </ul>
 * Options: {@code payload} = {@code varchar2} (default), {@code varchar2-extended} or {@code clob}; see
 * {@link OraclePayload}.
 */
public final class OracleDialectProvider implements DialectProvider {
    private static final Logger log = LoggerFactory.getLogger(OracleDialectProvider.class);

    @Override
    public String name() {
        return OracleDialect.NAME;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.productName().equalsIgnoreCase("Oracle");
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        Set<String> unknown = new HashSet<>(options.keySet());
        unknown.remove(OraclePayload.OPTION);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("the oracle dialect has one option, '" + OraclePayload.OPTION
                    + "'; got unknown " + unknown);
        }
        if (!product.atLeast(12, 1)) {
            throw new IllegalStateException("rowqueue-dialect-oracle needs Oracle Database 12.1 or later (identity"
                    + " columns, FETCH FIRST) and targets 19c and later; this is " + product.describe());
        }
        if (product.majorVersion() < OracleDialect.TARGET_MAJOR) {
            log.warn("rowqueue: {} is older than Oracle 19c, the oldest release rowqueue-dialect-oracle targets;"
                    + " it uses only features present since 12.1, but this release is not tested", product.describe());
        }
        OraclePayload payload = OraclePayload.of(options.getOrDefault(OraclePayload.OPTION,
                OraclePayload.VARCHAR2.optionValue()));
        return new OracleDialect(product, payload);
    }
}
