package dev.rowqueue.cli;

import picocli.CommandLine;

import java.util.Locale;
import java.util.Map;

/**
 * Dialect names as people type them: {@code postgres}, {@code pg} and {@code pgsql} mean {@code postgresql},
 * {@code maria} means {@code mariadb}. Every option of the command line that takes a dialect name goes through it.
 */
final class DialectName implements CommandLine.ITypeConverter<String> {

    /** Other names for dialects, lower case, to the dialect's own name. */
    static final Map<String, String> ALIASES = Map.of(
            "postgres", "postgresql",
            "pg", "postgresql",
            "pgsql", "postgresql",
            "maria", "mariadb");

    /**
     * @param name a dialect name or alias, or {@code null}
     * @return the dialect's own name for an alias, otherwise the name as given
     */
    static String canonical(String name) {
        if (name == null) {
            return null;
        }
        String alias = ALIASES.get(name.trim().toLowerCase(Locale.ROOT));
        return alias != null ? alias : name.trim();
    }

    @Override
    public String convert(String value) {
        return canonical(value);
    }
}
