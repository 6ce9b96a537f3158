package io.dogama.agent.http;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.metrics.Metrics;
import java.util.Objects;

/**
 * Where the HTTP surface accounts for what it does: the audit log (SPEC section 14) and the metrics
 * served at {@code GET /v1/metrics}. The agent always runs with both ({@link #of}); {@link #metricsOnly}
 * is for tests and the runtime image's self-check, which have no data directory.
 */
public final class Accounting {
    private final AuditLog audit;
    private final Metrics metrics;

    private Accounting(AuditLog audit, Metrics metrics) {
        this.audit = audit;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Every mutation is written durably to {@code audit} before it acts and after it ends (refused with
     * 503 {@code busy} when its first line cannot be written); every refusal is written best-effort.
     *
     * @param audit   the open audit log; the caller keeps ownership
     * @param metrics the registry the HTTP metrics are added to, and that {@code GET /v1/metrics} serves
     * @return the accounting
     */
    public static Accounting of(AuditLog audit, Metrics metrics) {
        return new Accounting(Objects.requireNonNull(audit, "audit"), metrics);
    }

    /**
     * @param metrics the registry
     * @return accounting without an audit log: mutations are not refused for want of one
     */
    public static Accounting metricsOnly(Metrics metrics) {
        return new Accounting(null, metrics);
    }

    /** @return the audit log, or null */
    AuditLog audit() {
        return audit;
    }

    /** @return the metrics registry */
    public Metrics metrics() {
        return metrics;
    }
}
