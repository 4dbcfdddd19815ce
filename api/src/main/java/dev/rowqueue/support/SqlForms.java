package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;

/**
 * The pieces of SQL that differ between databases inside otherwise standard statements. A dialect returns one value
 * of this from {@code Dialect.sqlForms()}; {@link #STANDARD} is SQL:2008's.
 *
 * @param now          the current time in epoch milliseconds as an SQL expression of type BIGINT; {@code :now}, the
 *                     standard form, is a parameter bound from the dialect's clock
 * @param limit        the clause after {@code ORDER BY} that limits a query's rows, with {@code %s} standing for the
 *                     name of the parameter holding the row count; empty where the cursor limits the rows instead
 * @param skipLocked   the clause after a claim's candidate query that locks the rows it returns while skipping rows
 *                     others hold; empty where there is none (the claim then relies on a conditional update)
 * @param lockingLimit the clauses after {@code ORDER BY} of a claim's or rotation's candidate query, with {@code %s}
 *                     for the row count's parameter; {@code null} for {@code limit} followed by {@code skipLocked}. A
 *                     database that cannot combine a row limit with {@code FOR UPDATE} (Oracle: ORA-02014) gives only
 *                     its locking clause, without the parameter; the store then limits the rows on the cursor (fetch
 *                     size and maximum rows), which, with {@code SKIP LOCKED}, locks only the rows fetched
 * @param generatedKey the name under which the driver returns the job id as a generated key
 */
public record SqlForms(String now, String limit, String skipLocked, String lockingLimit, String generatedKey) {

    /** SQL:2008: {@code :now}, {@code FETCH FIRST :n ROWS ONLY}, no locking clause, generated key {@code id}. */
    public static final SqlForms STANDARD = new SqlForms(":now", " FETCH FIRST :%s ROWS ONLY", "", null, "id");

    /** {@code LIMIT :n}, for the databases that have it. */
    public static final String LIMIT = " LIMIT :%s";

    /** {@code FOR UPDATE SKIP LOCKED}, for the databases that have it. */
    public static final String SKIP_LOCKED = " FOR UPDATE SKIP LOCKED";

    /**
     * @param parameter the name of a parameter holding the row count
     * @return the clause limiting a query's rows to it
     */
    public String limit(String parameter) {
        return limit.replace("%s", parameter);
    }

    /**
     * @param parameter the name of a parameter holding the row count
     * @return the clauses that limit a candidate query's rows to it and lock them
     */
    public String lockingLimit(String parameter) {
        return lockingLimit == null ? limit(parameter) + skipLocked : lockingLimit.replace("%s", parameter);
    }

    /**
     * @param now the current time's expression
     * @return these forms with it
     */
    public SqlForms withNow(String now) {
        return new SqlForms(now, limit, skipLocked, lockingLimit, generatedKey);
    }

    /**
     * @param limit the row limit's clause, {@code %s} for the parameter's name
     * @return these forms with it
     */
    public SqlForms withLimit(String limit) {
        return new SqlForms(now, limit, skipLocked, lockingLimit, generatedKey);
    }

    /**
     * @param skipLocked the locking clause
     * @return these forms with it
     */
    public SqlForms withSkipLocked(String skipLocked) {
        return new SqlForms(now, limit, skipLocked, lockingLimit, generatedKey);
    }

    /**
     * @param lockingLimit the candidate queries' clauses, {@code %s} for the parameter's name
     * @return these forms with it
     */
    public SqlForms withLockingLimit(String lockingLimit) {
        return new SqlForms(now, limit, skipLocked, lockingLimit, generatedKey);
    }

    /**
     * @param generatedKey the generated key's name
     * @return these forms with it
     */
    public SqlForms withGeneratedKey(String generatedKey) {
        return new SqlForms(now, limit, skipLocked, lockingLimit, generatedKey);
    }
}
