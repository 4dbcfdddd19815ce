package dev.rowqueue.bench;

/** Why a system of the side-by-side cells cannot run here (no Node.js, not this database); its cells say so. */
final class NotRun extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param reason why, for the table */
    NotRun(String reason) {
        super(reason);
    }
}
