package dev.rowqueue.tck.faults;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The fault campaign on one deployment, as a JUnit test class: subclass it, start the deployment in
 * {@link #start()}, and each {@link Fault} of {@link #faults()} runs as one test per round ({@code
 * rowqueue.faults.rounds}, 1 unless set; the soak profile sets more), each checked by the {@link HistoryChecker}.
 * A fault the deployment cannot suffer is reported NOT RUN (skipped) with its reason, and so is every cell where the
 * deployment cannot start (the first cell starts it). Afterwards the rounds' table is
 * written to {@code target/rowqueue-faults/<class>.md} and printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class FaultCampaign {

    private FaultTarget target;
    private final List<CellResult> results = Collections.synchronizedList(new ArrayList<>());

    /**
     * @return the deployment, started; fail a JUnit assumption where it cannot run here (NOT RUN)
     */
    protected abstract FaultTarget start();

    /**
     * @return the faults to inject: all, or those named in {@code rowqueue.faults.only} (comma-separated, e.g.
     *         {@code KILL,STALL})
     */
    protected Set<Fault> faults() {
        String only = System.getProperty("rowqueue.faults.only", "").strip();
        if (only.isEmpty()) {
            return EnumSet.allOf(Fault.class);
        }
        Set<Fault> chosen = EnumSet.noneOf(Fault.class);
        for (String name : only.split(",")) {
            chosen.add(Fault.valueOf(name.strip().toUpperCase(Locale.ROOT)));
        }
        return chosen;
    }

    /** @return the settings of each round */
    protected FaultCell cell() {
        return FaultCell.fromProperties();
    }

    /** Why the deployment cannot run here, once {@link #start()} aborted; then every cell is NOT RUN. */
    private String notRun;

    private synchronized FaultTarget target() {
        if (target == null && notRun == null) {
            try {
                target = start();
            } catch (TestAbortedException e) {
                notRun = e.getMessage();
                System.out.println("fault campaign: NOT RUN: " + notRun);
            }
        }
        if (target == null) {
            Assumptions.abort(notRun);
        }
        return target;
    }

    @AfterAll
    void stopTarget() {
        try {
            if (!results.isEmpty()) {
                String table = CampaignReport.markdown(results);
                System.out.println(table);
                Path dir = Path.of("target", "rowqueue-faults");
                Files.createDirectories(dir);
                Files.writeString(dir.resolve(getClass().getSimpleName() + ".md"), table);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (target != null) {
                target.close();
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> campaign() {
        int rounds = Integer.getInteger("rowqueue.faults.rounds", 1);
        List<DynamicTest> tests = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (Fault fault : faults()) {
                int r = round;
                tests.add(DynamicTest.dynamicTest(fault + " round " + r, () -> runCell(fault, r)));
            }
        }
        return tests.stream();
    }

    private void runCell(Fault fault, int round) throws Exception {
        String prefix = "f" + fault.name().toLowerCase(Locale.ROOT).replace("_", "").substring(0, 4) + round;
        CellResult result;
        FaultTarget t = target();
        try {
            result = cell().run(t, fault, prefix);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort(fault + " does not apply to " + t.name() + ": " + e.getMessage());
            return;
        } catch (Exception | Error e) {
            t.keepEvidence(); // a deployment that did not recover is evidence too
            throw e;
        }
        results.add(result);
        System.out.println("fault campaign: " + result.line());
        if (!result.anomalies().isEmpty()) {
            target.keepEvidence();
        }
        Assertions.assertEquals(List.of(), result.anomalies(), () -> fault + " on " + target.name() + ": "
                + result.anomalies().size() + " anomalies");
    }
}
