package dev.rowqueue.mysql;

import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

/**
 * Issue 34's liveness measure of keyed claims on multi-master clusters, in the soak profile: the kit's rule of 8
 * consumers over 50 keys under a per-key limit of 1 ({@code KeyedJobContract}), run {@code rowqueue.soak.runs} times
 * (10 unless set) on each spread target (Galera, multi-primary Group Replication), each run on a fresh cluster. Every
 * run must pass, within its time; the rule's time per run is printed ({@code -Drowqueue.soak.targets=Galera} runs
 * one target only).
 * {@code ./mvnw -Psoak -pl dialect-mysql -am verify -Dtest=KeyedLivenessSoakTest}.
 */
class KeyedLivenessSoakTest {

    private static final String RULE =
            "eight_consumers_over_fifty_keys_never_hold_two_jobs_of_one_key_and_take_each_keys_jobs_in_order";

    @Test
    void the_eight_consumer_keyed_rule_passes_every_run_on_both_spread_targets() {
        int runs = Integer.getInteger("rowqueue.soak.runs", 10);
        List<String> failures = new ArrayList<>();
        String only = System.getProperty("rowqueue.soak.targets", "");
        for (Class<?> target : List.of(MariaDbGaleraSpreadTckTest.class, MySqlGroupReplicationSpreadTckTest.class)) {
            if (!target.getSimpleName().contains(only)) {
                continue;
            }
            for (int run = 1; run <= runs; run++) {
                LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectNestedMethod(List.of(target.getName()),
                                "dev.rowqueue.tck.RowQueueTck$KeyedJobs", RULE))
                        .build();
                Launcher launcher = LauncherFactory.create();
                SummaryGeneratingListener summary = new SummaryGeneratingListener();
                long[] rule = new long[2];
                launcher.execute(request, summary, new TestExecutionListener() {
                    @Override
                    public void executionStarted(TestIdentifier id) {
                        if (id.isTest()) {
                            rule[0] = System.nanoTime();
                        }
                    }

                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        if (id.isTest()) {
                            rule[1] = System.nanoTime();
                        }
                    }
                });
                TestExecutionSummary s = summary.getSummary();
                String what = target.getSimpleName() + " run " + run;
                System.out.printf("keyed liveness: %s: %d found, %d passed, the rule took %.1f s%n", what,
                        s.getTestsFoundCount(), s.getTestsSucceededCount(), (rule[1] - rule[0]) / 1e9);
                if (s.getTestsSucceededCount() != 1) {
                    s.getFailures().forEach(f -> failures.add(what + ": " + f.getException()));
                    if (s.getFailures().isEmpty()) {
                        failures.add(what + ": not run (" + s.getTestsFoundCount() + " found)");
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }
}
