package dev.rowqueue.tck;

import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The whole kit against the {@link ConfiguredTarget}: the database given at run time rather than in code. This is the
 * class {@code rowqueue tck --url ...} runs through the JUnit Platform Launcher. With nothing configured it is
 * disabled, and its report says NOT RUN.
 */
@EnabledIf(value = "dev.rowqueue.tck.ConfiguredTarget#isConfigured",
        disabledReason = "no database configured (rowqueue tck --url, or -Drowqueue.tck.url)")
public class ConfiguredTck extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return ConfiguredTarget.create();
    }
}
