/**
 * Fault tests with one history checker: a {@link dev.rowqueue.tck.faults.Workload} records every call into a
 * {@link dev.rowqueue.tck.faults.History}, a {@link dev.rowqueue.tck.faults.HistoryChecker} proves afterwards that no
 * promise was broken, and a {@link dev.rowqueue.tck.faults.FaultCampaign} runs every
 * {@link dev.rowqueue.tck.faults.Fault} on a {@link dev.rowqueue.tck.faults.FaultTarget} (a cluster, a primary with
 * its standby). See {@code docs/reliability.md}.
 */
package dev.rowqueue.tck.faults;
