package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiles the Java blocks of README.md and docs/workflows.md as test sources, against this module's test class path (the API, the TCK,
 * HikariCP). A block of statements becomes the body of a method in a class that declares what the README leaves to
 * the reader ({@code dataSource}, {@code smtp}, {@code order}, {@code insertOrder}, {@code json}); a block that
 * declares a class is compiled as it is, with the imports it needs.
 *
 * <p>Not compiled: the "Spring Boot, Micrometer, jOOQ" block, which needs Spring, Micrometer and jOOQ, none of them
 * on this module's class path (the starter's, rowqueue-micrometer's and rowqueue-jooq's own tests cover that API).
 */
class ReadmeJavaTest {

    private static final String IMPORTS = "import dev.rowqueue.*;\nimport dev.rowqueue.tck.*;\n"
            + "import com.zaxxer.hikari.HikariConfig;\nimport com.zaxxer.hikari.HikariDataSource;\n"
            + "import java.sql.Connection;\nimport java.time.*;\nimport java.util.*;\n"
            + "import javax.sql.DataSource;\n";

    private static final String CONTEXT = """
                interface Smtp { void send(String message) throws Exception; }
                record Order(long id) { }
                DataSource dataSource;
                Smtp smtp;
                Order order;
                String json;
                void insertOrder(Connection c, Order o) { }
            """;

    /** @return whether the block needs a library this module does not have */
    private static boolean excluded(Docs.Block b) {
        return b.code().contains("@Bean") || b.code().contains("JooqWorkQueue") || b.code().contains("RowQueueMetrics");
    }

    /** The documents whose Java blocks are compiled: the README, and the pages whose examples are code. */
    private static final List<String> DOCUMENTS = List.of("README.md", "docs/workflows.md");

    @Test
    void the_readme_java_blocks_compile(@TempDir Path out) {
        List<Docs.Block> blocks = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        for (String document : DOCUMENTS) {
            for (Docs.Block b : Docs.blocks(Docs.ROOT.resolve(document))) {
                if (b.lang().equals("java")) {
                    blocks.add(b);
                    prefixes.add(document.equals("README.md") ? "ReadmeBlock" : "DocsBlock"
                            + document.replaceAll("\\W", "_"));
                }
            }
        }
        List<JavaFileObject> sources = new ArrayList<>();
        int excluded = 0;
        for (int i = 0; i < blocks.size(); i++) {
            Docs.Block b = blocks.get(i);
            if (excluded(b)) {
                excluded++;
                continue;
            }
            String name = prefixes.get(i) + b.line();
            String source;
            if (b.code().contains("class ") && b.code().strip().startsWith("class ")) {
                source = "package readme;\n" + IMPORTS + b.code();
                name = b.code().strip().split("\\s+")[1];
            } else {
                source = "package readme;\n" + IMPORTS + "class " + name + " {\n" + CONTEXT
                        + "    void run() throws Exception {\n" + b.code() + "\n    }\n}\n";
            }
            String className = name;
            String text = source;
            sources.add(new SimpleJavaFileObject(URI.create("string:///readme/" + className + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return text;
                }
            });
        }
        assertEquals(1, excluded, "only the Spring/Micrometer/jOOQ block is excluded");
        assertTrue(sources.size() >= 4, "Java blocks found: " + blocks.size());
        assertTrue(prefixes.stream().anyMatch(p -> p.startsWith("DocsBlock")), "docs/workflows.md has Java blocks");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
            boolean ok = javac.getTask(null, files, diagnostics, List.of("-d", out.toString(), "-classpath",
                    System.getProperty("java.class.path"), "-proc:none", "-Xlint:none"), null, sources).call();
            assertTrue(ok, () -> diagnostics.getDiagnostics().stream().map(Object::toString)
                    .collect(Collectors.joining("\n")));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
