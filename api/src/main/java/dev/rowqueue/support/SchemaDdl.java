package dev.rowqueue.support;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.WorkTables;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Renders the schema's DDL ({@link Schema}) for one database from its {@link DdlFeatures}: CREATE TABLE with columns,
 * primary key and checks, then CREATE INDEX per index (or the index inside CREATE TABLE, or a UNIQUE constraint,
 * where the features say so), schema upgrades, identity restarts and DROP TABLE.
 *
 * <p>Every method but {@link #ring} and {@link #work(WorkTables)} is final. A database whose rings or work queues
 * need more than tables (a trigger that enforces the cap, say) extends this class and adds its statements to theirs;
 * everything else is an answer in {@link DdlFeatures}.
 */
public class SchemaDdl {

    private final DdlFeatures features;

    /**
     * @param features what the database's DDL looks like
     */
    public SchemaDdl(DdlFeatures features) {
        this.features = Objects.requireNonNull(features, "features");
    }

    /** @return what the database's DDL looks like */
    public final DdlFeatures features() {
        return features;
    }

    /**
     * @param type a logical type
     * @return its SQL type, with the length of keys, payloads and error texts; for casts of parameters
     */
    public final String typeOf(Schema.Type type) {
        return features.types().render(type, features.lengthOf(type));
    }

    /** @return the catalog table's DDL ({@link Schema#catalog()}) */
    public final List<String> catalog() {
        return create(Schema.catalog());
    }

    /**
     * @return the activity table's DDL ({@link Schema#activity()}), created with the catalog (and, on a database whose
     *         catalog is older than the table, when the catalog is next checked)
     */
    public final List<String> activity() {
        return create(Schema.activity());
    }

    /**
     * @return the statements that add {@link Schema#activityWaitColumns() the wait columns} to an activity table
     *         created before them; each may fail because another node ran it first
     */
    public final List<String> activityUpgrade() {
        Schema.Table activity = Schema.activity();
        return Schema.activityWaitColumns().stream().map(c -> addColumn(activity, c)).toList();
    }

    /**
     * @return the activity table's DDL as it was before the wait columns, which {@link #activityUpgrade()} upgrades;
     *         for tests of that upgrade
     */
    public final List<String> activityBeforeWaits() {
        Schema.Table now = Schema.activity();
        List<Schema.Column> before = now.columns().stream().filter(c -> !Schema.activityWaitColumns().contains(c))
                .toList();
        return create(new Schema.Table(now.name(), before, now.primaryKey(), now.indexes(), now.checks()));
    }

    /** @return the nodes table's DDL ({@link Schema#nodes()}), created with the catalog */
    public final List<String> nodes() {
        return create(Schema.nodes());
    }

    /**
     * @return the DDL of the schedule tables ({@link Schema#schedules()} and {@link Schema#scheduleSlots()}), created
     *         with the catalog when schedules are first used, on new and existing schemas alike
     */
    public final List<String> schedules() {
        return create(Schema.schedules(), Schema.scheduleSlots());
    }

    /**
     * The ring's DDL: {@link Schema#ringEntries} (with the {@code (grp, seq)} index unless the strategy is safe and
     * {@link DdlFeatures#ringSeqIndex()} says no) and {@link Schema#ringHeads}. The one method a database may extend,
     * to add what its ring strategies need besides the tables.
     *
     * @param t       the ring's tables
     * @param options capacity and strategy
     * @return the statements
     */
    public List<String> ring(RingTables t, RingOptions options) {
        return create(ringTables(t, options).toArray(Schema.Table[]::new));
    }

    /**
     * The tables {@link #ring} creates, as the schema check ({@link dev.rowqueue.RowQueues#checkSchema()}) expects
     * them: {@link Schema#ringEntries} (with the {@code (grp, seq)} index unless the strategy is safe and
     * {@link DdlFeatures#ringSeqIndex()} says no) and {@link Schema#ringHeads}.
     *
     * @param t       the ring's tables
     * @param options capacity and strategy
     * @return the tables
     */
    public final List<Schema.Table> ringTables(RingTables t, RingOptions options) {
        return List.of(Schema.ringEntries(t, options.strategy() != RingStrategy.SAFE || features.ringSeqIndex()),
                Schema.ringHeads(t));
    }

    /**
     * @param t the work queue's tables
     * @return its DDL: {@link Schema#jobs} with its indexes ({@link DdlFeatures#liveJobIndexes()}) and
     *         {@link Schema#cursors}
     */
    public List<String> work(WorkTables t) {
        return create(workTables(t).toArray(Schema.Table[]::new));
    }

    /**
     * @param t the work queue's tables
     * @return the tables {@link #work(WorkTables)} creates, with the indexes this database gets: {@link Schema#jobs}
     *         and {@link Schema#cursors}
     */
    public final List<Schema.Table> workTables(WorkTables t) {
        return List.of(Schema.jobs(t).withIndexes(workIndexes(t)), Schema.cursors(t));
    }

    /**
     * The DDL of a work queue as a schema version created it: the current one, or version 1 (without the key
     * columns and their indexes), which is what {@link #workUpgrade} upgrades; for tests of that upgrade.
     *
     * @param t       the work queue's tables
     * @param version 1 or {@value Schema#VERSION}
     * @return the DDL
     */
    public final List<String> work(WorkTables t, int version) {
        if (version == Schema.VERSION) {
            return work(t);
        }
        if (version != 1) {
            throw new IllegalArgumentException("no work queue DDL of schema version " + version);
        }
        List<String> added = addedByVersion2(t);
        List<Schema.Index> v1 = workIndexes(t).stream().filter(i -> !added.contains(i.name())).toList();
        return create(Schema.jobsVersion1(t).withIndexes(v1), Schema.cursors(t));
    }

    /**
     * The statements that upgrade a work queue's tables from schema version 1 to {@value Schema#VERSION}: add the
     * {@linkplain Schema#keyColumns() key columns}, then create the {@linkplain Schema#keyIndexes key indexes}. Run
     * in order; each may fail because another node ran it first, so the caller checks the result instead of the
     * statements.
     *
     * @param t the work queue's tables
     * @return the statements
     */
    public final List<String> workUpgrade(WorkTables t) {
        List<String> ddl = new ArrayList<>();
        Schema.Table jobs = Schema.jobs(t).withIndexes(workIndexes(t));
        for (Schema.Column c : Schema.keyColumns()) {
            ddl.add(addColumn(jobs, c));
        }
        List<String> added = addedByVersion2(t);
        for (Schema.Index i : jobs.indexes()) {
            if (added.contains(i.name())) {
                ddl.add(indexDdl(jobs, i));
            }
        }
        return List.copyOf(ddl);
    }

    /**
     * @param t the counters table
     * @return its DDL ({@link Schema#counters})
     */
    public final List<String> counters(CounterTable t) {
        return create(Schema.counters(t));
    }

    /**
     * Statements that make the job id column continue at {@code nextId}, run after jobs were imported with explicit
     * ids (migration between databases): {@link DdlFeatures#restartIdentity()} filled in.
     *
     * @param t      the work queue's tables
     * @param nextId the id the next enqueued job must get at least
     * @return the statements; empty where nothing needs to run
     */
    public final List<String> restartIdentity(WorkTables t, long nextId) {
        return features.restartIdentity().stream()
                .map(s -> s.replace(DdlFeatures.JOBS, t.jobs()).replace(DdlFeatures.SEQUENCE, t.sequence())
                        .replace(DdlFeatures.NEXT, Long.toString(nextId))
                        .replace(DdlFeatures.LAST, Long.toString(nextId - 1)))
                .toList();
    }

    /**
     * @param t a table
     * @param i one of its indexes
     * @return the statement that creates the index on the existing table: CREATE INDEX, or where indexes are declared
     *         in the table ALTER TABLE ... ADD INDEX, or where the features say so ALTER TABLE ... ADD CONSTRAINT
     */
    public final String createIndex(Schema.Table t, Schema.Index i) {
        return indexDdl(t, i);
    }

    /**
     * @param t a table
     * @param i one of its indexes
     * @return the statement that drops the index as {@link #createIndex} makes it (for tests of the schema check, and
     *         for operators)
     */
    public final String dropIndex(Schema.Table t, Schema.Index i) {
        if (constraintInstead(i)) {
            return "ALTER TABLE " + t.name() + " DROP CONSTRAINT " + i.name();
        }
        if (features.indexesInTable()) {
            return "ALTER TABLE " + t.name() + " DROP INDEX " + i.name();
        }
        return "DROP INDEX " + i.name();
    }

    /**
     * @param t a table
     * @return the statement that adds its primary key to the existing table
     */
    public final String addPrimaryKey(Schema.Table t) {
        return "ALTER TABLE " + t.name() + " ADD PRIMARY KEY (" + String.join(", ", t.primaryKey()) + ")";
    }

    /**
     * @param c a column
     * @return its definition as CREATE TABLE has it ({@code name TYPE [DEFAULT ...] [NOT NULL] [CHECK ...]})
     */
    public final String columnDefinition(Schema.Column c) {
        return column(c);
    }

    /**
     * @param c a column
     * @return whether this database's DDL declares it NOT NULL (an identity column is the primary key's)
     */
    public final boolean declaresNotNull(Schema.Column c) {
        if (c.type() == Schema.Type.PAYLOAD && features.nullablePayloads()) {
            return false;
        }
        return c.notNull();
    }

    /**
     * @param tables tables, such as a test's variants of rowqueue's own
     * @return the statements that create them, as this database's DDL has them; a table without primary key columns
     *         gets none
     */
    public final List<String> createTables(Schema.Table... tables) {
        return create(tables);
    }

    /**
     * @param table a table
     * @return a DROP TABLE statement, with {@code IF EXISTS} where {@link DdlFeatures#ifNotExists()}
     */
    public final String dropTable(String table) {
        return "DROP TABLE " + (features.ifNotExists() ? "IF EXISTS " : "") + table + features.dropSuffix();
    }

    /**
     * @param tables tables in creation order
     * @return the statements that create them: per table, its sequence where ids come from one, its CREATE TABLE,
     *         then a CREATE INDEX per index not declared in the table
     */
    protected final List<String> create(Schema.Table... tables) {
        List<String> ddl = new ArrayList<>();
        for (Schema.Table t : tables) {
            boolean sequence = features.sequence() != null && hasIdentity(t);
            if (sequence) {
                ddl.add(features.sequence().replace(DdlFeatures.SEQUENCE, sequenceOf(t)));
            }
            String create = "CREATE TABLE " + (features.ifNotExists() ? "IF NOT EXISTS " : "") + t.name() + " ("
                    + tableElements(t) + ")" + features.tableOptions();
            ddl.add(sequence ? create.replace(DdlFeatures.SEQUENCE, sequenceOf(t)) : create);
            for (Schema.Index i : t.indexes()) {
                if (!features.indexesInTable() && !constraintInstead(i)) {
                    ddl.add(indexDdl(t, i));
                }
            }
        }
        return List.copyOf(ddl);
    }

    /** The indexes on the key columns, which version 2 added: the key indexes, and the leased keyed jobs' index. */
    private static List<String> addedByVersion2(WorkTables t) {
        List<String> added = new ArrayList<>(Schema.keyIndexes(t).stream().map(Schema.Index::name).toList());
        added.add(t.leasedIndex());
        return added;
    }

    /**
     * The jobs table's indexes. With {@link DdlFeatures#liveJobIndexes()}, partial: the claim and fair indexes over
     * live jobs, the dead letters' over dead ones, and one more, {@link WorkTables#leasedIndex()} on {@code job_key}
     * over leased live keyed jobs, from which a claim under a per-key limit reads the keys at their limit.
     */
    private List<Schema.Index> workIndexes(WorkTables t) {
        if (!features.liveJobIndexes()) {
            return Schema.jobs(t).indexes();
        }
        String live = "state = " + WorkTables.LIVE;
        List<Schema.Index> indexes = new ArrayList<>(List.of(
                Schema.Index.on(t.claimIndex(), false, "prio DESC", "due_ms", "id").where(live),
                Schema.Index.on(t.deadIndex(), false, "id").where("state = " + WorkTables.DEAD)));
        for (Schema.Index i : Schema.keyIndexes(t)) {
            indexes.add(i.name().equals(t.fairIndex())
                    ? Schema.Index.on(t.fairIndex(), false, "key_seq", "prio DESC", "id").where(live) : i);
        }
        indexes.add(Schema.Index.on(t.leasedIndex(), false, "job_key").where("lease_token IS NOT NULL AND " + live)
                .forKeys());
        return indexes;
    }

    private static boolean hasIdentity(Schema.Table t) {
        return t.columns().stream().anyMatch(c -> c.type() == Schema.Type.IDENTITY);
    }

    /** The sequence of a table with an identity column: the jobs table is named like its queue. */
    private static String sequenceOf(Schema.Table t) {
        return WorkTables.of(t.name()).sequence();
    }

    private String column(Schema.Column c) {
        int length = switch (c.type()) {
            case KEY, PAYLOAD, ERROR_TEXT -> features.lengthOf(c.type());
            default -> c.length();
        };
        String type = features.types().render(c.type(), length);
        if (c.type() == Schema.Type.PAYLOAD && features.nullablePayloads()) {
            return c.name() + " " + type;
        }
        return c.name() + " " + type + (c.defaultValue() == null ? "" : " DEFAULT " + c.defaultValue())
                + (c.notNull() && c.type() != Schema.Type.IDENTITY ? " NOT NULL" : "")
                + (c.computed() && features.computedCheck() != null
                        ? " CHECK (" + c.name() + " " + features.computedCheck() + ")" : "");
    }

    /** Columns, primary key (unless the identity column declares it), in-table indexes, checks and constraints. */
    private String tableElements(Schema.Table t) {
        List<String> parts = new ArrayList<>();
        for (Schema.Column c : t.columns()) {
            parts.add(column(c));
        }
        if (!(features.types().identityDeclaresKey() && hasIdentity(t)) && !t.primaryKey().isEmpty()) {
            parts.add("PRIMARY KEY (" + String.join(", ", t.primaryKey()) + ")");
        }
        if (features.indexesInTable()) {
            for (Schema.Index i : t.indexes()) {
                parts.add((i.unique() ? "UNIQUE KEY " : "KEY ") + i.name() + " (" + columns(i) + ")");
            }
        }
        for (String check : t.checks()) {
            parts.add("CHECK (" + check + ")");
        }
        for (Schema.Index i : t.indexes()) {
            if (constraintInstead(i)) {
                parts.add("CONSTRAINT " + i.name() + " UNIQUE (" + columns(i) + ")");
            }
        }
        return String.join(", ", parts);
    }

    private boolean constraintInstead(Schema.Index i) {
        return features.uniqueKeyedAsConstraint() && i.unique() && i.keyed();
    }

    private String columns(Schema.Index i) {
        return features.descendingIndexes() ? String.join(", ", i.columns())
                : String.join(", ", i.columns().stream().map(c -> c.replace(" DESC", "")).toList());
    }

    /** An index of its own: CREATE INDEX, or, on a table whose indexes are declared in it, ALTER TABLE ... ADD. */
    private String indexDdl(Schema.Table t, Schema.Index i) {
        if (constraintInstead(i)) {
            return "ALTER TABLE " + t.name() + " ADD CONSTRAINT " + i.name() + " UNIQUE (" + columns(i) + ")";
        }
        if (features.indexesInTable()) {
            return "ALTER TABLE " + t.name() + " ADD " + (i.unique() ? "UNIQUE " : "") + "INDEX " + i.name() + " ("
                    + columns(i) + ")";
        }
        return "CREATE " + (i.unique() ? "UNIQUE " : "") + "INDEX " + (features.ifNotExists() ? "IF NOT EXISTS " : "")
                + i.name() + " ON " + t.name() + " (" + columns(i) + ")" + indexCondition(i)
                + (i.keyed() ? features.keyedIndexSuffix() : "");
    }

    /** Its own condition, and, for a keyed index where partial indexes exist, that its first column is not NULL. */
    private String indexCondition(Schema.Index i) {
        List<String> conditions = new ArrayList<>();
        if (i.where() != null) {
            conditions.add(i.where());
        }
        if (i.keyed() && features.partialIndexes()) {
            conditions.add(i.columns().get(0).replace(" DESC", "") + " IS NOT NULL");
        }
        return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
    }

    private String addColumn(Schema.Table t, Schema.Column c) {
        String definition = column(c);
        if (!features.addsConstrainedColumns() && definition.endsWith(" NOT NULL")) {
            definition = definition.substring(0, definition.length() - " NOT NULL".length());
        }
        return features.addColumn().replace(DdlFeatures.TABLE, t.name()).replace(DdlFeatures.COLUMN, definition);
    }

    @Override
    public String toString() {
        return "SchemaDdl[" + features + "]";
    }
}
