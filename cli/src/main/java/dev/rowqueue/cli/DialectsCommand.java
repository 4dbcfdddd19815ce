package dev.rowqueue.cli;

import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.spi.DialectProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/** Lists the dialects this jar (and any --driver-jar) provides. */
@Command(name = "dialects", mixinStandardHelpOptions = true,
        description = "Lists the dialects found on the class path, in detection order, and the portable fallback.")
final class DialectsCommand extends BaseCommand {

    @Option(names = "--driver-jar", paramLabel = "PATH", description = "also look into these jars")
    List<Path> driverJars = new ArrayList<>();

    @Override
    int run() {
        useDriverJars(driverJars);
        Table table = new Table("dialect", "priority", "provider", "from");
        for (DialectProvider p : DialectProviders.available()) {
            CodeSource source = p.getClass().getProtectionDomain().getCodeSource();
            String from = source == null || source.getLocation() == null ? "" : source.getLocation().getPath();
            from = from.endsWith("/") ? from.substring(0, from.length() - 1) : from;
            table.row(p.name(), p.priority() == Integer.MIN_VALUE ? "fallback" : (Object) p.priority(), p.getClass().getName(), from.substring(from.lastIndexOf('/') + 1));
        }
        terminal().print(table);
        return ExitCode.OK;
    }
}
