package dev.rowqueue.tck.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The campaign's table: one row per deployment and fault, over all its rounds. */
public final class CampaignReport {

    private CampaignReport() {
    }

    /** The table's header. */
    public static final String HEADER = "| Deployment | Fault | Rounds | Operations | Enqueues acknowledged | Job runs"
            + " | Failed (nothing applied) | Unknown outcomes | Anomalies | Recovery after the fault ended (ms, worst)"
            + " | Longest outage (ms, worst) |\n|---|---|---|---|---|---|---|---|---|---|---|\n";

    /**
     * @param results rounds of cells
     * @return the Markdown table
     */
    public static String markdown(List<CellResult> results) {
        Map<String, List<CellResult>> cells = new LinkedHashMap<>();
        for (CellResult r : new ArrayList<>(results)) {
            cells.computeIfAbsent(r.deployment() + "\u0000" + r.fault(), k -> new ArrayList<>()).add(r);
        }
        StringBuilder b = new StringBuilder(HEADER);
        for (List<CellResult> rounds : cells.values()) {
            CellResult first = rounds.get(0);
            b.append("| ").append(first.deployment()).append(" | ").append(first.fault().description())
                    .append(" (").append(first.what()).append(") | ").append(rounds.size()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::operations).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::enqueued).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::runs).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::failed).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::unknown).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(r -> r.anomalies().size()).sum()).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::recoveryMillis).max().orElse(0)).append(" | ")
                    .append(rounds.stream().mapToLong(CellResult::outageMillis).max().orElse(0)).append(" |\n");
        }
        return b.toString();
    }
}
