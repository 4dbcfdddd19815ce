package dev.rowqueue.cli;

import org.slf4j.LoggerFactory;

/** Run in a JVM of its own by {@link CliLoggingTest}: configures logging as the command line does, then logs. */
public final class LoggingProbe {

    private LoggingProbe() {
    }

    /**
     * @param args the command line whose logging to configure
     */
    public static void main(String[] args) {
        RowQueueCli.configureLogging(args);
        LoggerFactory.getLogger("org.mariadb.jdbc.message.server.ErrorPacket").warn("driver warning");
        LoggerFactory.getLogger("com.zaxxer.hikari.pool.HikariPool").info("pool info");
        LoggerFactory.getLogger("org.mariadb.jdbc.Driver").error("driver error");
        LoggerFactory.getLogger("dev.rowqueue.internal.SchemaManager").warn("rowqueue warning");
        LoggerFactory.getLogger("dev.rowqueue.internal.SchemaManager").info("rowqueue info");
        java.util.logging.Logger.getLogger("org.postgresql.Driver").warning("jul driver warning");
    }
}
