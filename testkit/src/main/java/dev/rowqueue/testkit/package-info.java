/**
 * What rowqueue's own tests, the TCK, the benchmarks and the command line share, and nothing of rowqueue's API: JDBC
 * doubles ({@link dev.rowqueue.testkit.CountingDataSource}, {@link dev.rowqueue.testkit.FaultyDataSource},
 * {@link dev.rowqueue.testkit.InterceptingDataSource}, {@link dev.rowqueue.testkit.ScriptedConnection},
 * {@link dev.rowqueue.testkit.DriverManagerDataSource}) and the one embedded-server fixture
 * ({@link dev.rowqueue.testkit.EmbeddedPostgresServer}, {@link dev.rowqueue.testkit.EmbeddedMariaDbServer}).
 */
package dev.rowqueue.testkit;
