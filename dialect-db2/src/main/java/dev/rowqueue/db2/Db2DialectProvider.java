package dev.rowqueue.db2;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Map;

/**
 * Recognises Db2 for Linux, UNIX and Windows, whose JDBC product name starts with {@code DB2/} ("DB2/LINUXX8664",
 * "DB2/NT64", "DB2/AIX64", ...), with the version from {@code getDatabaseMajorVersion/MinorVersion} (product version
 * "SQL11059" is 11.5, "SQL12010" is 12.1). Version gates:
 * <ul>
 *   <li>11.5 and 12.1: the versions this dialect targets;</li>
 *   <li>11.1: accepted with a warning (every feature used exists since 11.1, the first release that takes a
 *       parameter in {@code FETCH FIRST}), but it is not a target;</li>
 *   <li>10.5 and older: refused with a clear error ({@code FETCH FIRST} takes only a constant there).</li>
 * </ul>
 * Db2 for z/OS ("DB2") and for IBM i ("DB2 UDB for AS/400") are different products and are not recognised.
 */
public final class Db2DialectProvider implements DialectProvider {
    private static final Logger log = LoggerFactory.getLogger(Db2DialectProvider.class);

    @Override
    public String name() {
        return Db2Dialect.NAME;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.productName().toUpperCase(Locale.ROOT).startsWith("DB2/");
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("the db2 dialect has no options; got " + options.keySet());
        }
        if (!product.atLeast(11, 1)) {
            throw new IllegalStateException("rowqueue-dialect-db2 needs Db2 LUW 11.1 or later (a parameter in FETCH"
                    + " FIRST) and targets 11.5 and 12.1; this is " + product.describe());
        }
        if (!product.atLeast(11, 5)) {
            log.warn("rowqueue: {} is older than Db2 11.5, the oldest release rowqueue-dialect-db2 targets; it uses"
                    + " only features present since 11.1, but this release is not tested", product.describe());
        }
        return new Db2Dialect(product);
    }
}
