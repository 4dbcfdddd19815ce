package dev.rowqueue.support;

import org.junit.jupiter.api.Test;

import java.util.function.BinaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** Each {@code withX} of the statement sets changes its own slot and keeps every other. */
class StatementsCopyTest {

    /** @return {@code n} distinct statements */
    private static Sql[] sqls(int n) {
        Sql[] sqls = new Sql[n];
        for (int i = 0; i < n; i++) {
            sqls[i] = Sql.of("SELECT " + i);
        }
        return sqls;
    }

    @Test
    void every_work_statement_slot_is_set_by_its_own_with_and_kept_by_the_others() {
        WorkStatements.ClaimWindow window = new WorkStatements.ClaimWindow(null, null, null, "LIMIT :k", "");
        WorkStatements.ById byId = new WorkStatements.ById("UPDATE j", "DELETE FROM j", "live");
        BinaryOperator<String> before = (o, j) -> o + " < " + j;
        WorkForms.Factory forms = portable -> null;
        Sql[] q = sqls(6);
        WorkStatements all = WorkStatements.PORTABLE.withEnqueueOne(q[0]).withClaimable(q[1]).withClaim(q[2])
                .withCursor(q[3]).withLeaseReturning("lease").withWindow(window).withById(byId).withGate(q[4])
                .withWriteFirst(q[5]).withUnlockedKeyedCandidates().withBefore(before).withForms(forms);
        assertThat(all).isEqualTo(new WorkStatements(q[0], q[1], q[2], q[3], "lease", window, byId, q[4], q[5], true,
                before, forms));
        assertThat(WorkStatements.PORTABLE).isEqualTo(new WorkStatements(null, null, null, null, null, null, null,
                null, null, false, null, null));
    }

    @Test
    void every_ring_statement_slot_is_set_by_its_own_with_and_kept_by_the_others() {
        Sql[] q = sqls(6);
        RingStatements.Bump bumpHook = (c, ring, group, n) -> n;
        RingStatements.Slots slotsHook = (c, ring, group, firstSeq, payloads) -> { };
        RingStatements.Push pushHook = (ring, group, payloads, steps) -> steps;
        RingStatements all = RingStatements.PORTABLE.withBump(q[0]).withUpsert(q[1]).withPushOne(q[2])
                .withNewestByHead(q[3]).withSingleWriter(q[4]).withSingleWriterMerge(q[5]).withBump(bumpHook)
                .withSlots(slotsHook).withPush(pushHook);
        assertThat(all).isEqualTo(new RingStatements(q[0], q[1], q[2], q[3], q[4], q[5], bumpHook, slotsHook,
                pushHook));
        assertThat(RingStatements.singleWriter(q[4])).isEqualTo(new RingStatements(null, null, null, null, q[4], null,
                null, null, null));
    }
}
