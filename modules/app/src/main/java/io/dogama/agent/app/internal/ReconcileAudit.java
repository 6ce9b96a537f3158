package io.dogama.agent.app.internal;

import io.dogama.agent.audit.AuditEvent;
import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.core.Ids;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.metrics.Metrics;

/**
 * Writes each start-up reconciliation action, and each action of a request's recovery of a record left unfinished,
 * to the audit log, durably (it may have changed a container), and counts it by action (so that an alert needs no
 * audit reader).
 */
final class ReconcileAudit implements Reconciliations {
    private static final System.Logger LOG = System.getLogger(ReconcileAudit.class.getName());

    private final AuditLog audit;
    private final Metrics.Counter actions;

    ReconcileAudit(AuditLog audit, Metrics.Counter actions) {
        this.audit = audit;
        this.actions = actions;
    }

    @Override
    public void reconciled(String instanceId, Action action) {
        write("startup", instanceId, action);
    }

    @Override
    public void resolvedByRequest(String instanceId, Action action) {
        write("request", instanceId, action);
    }

    private void write(String when, String instanceId, Action action) {
        actions.inc(action.code());
        // A tampered record's key may not even be an ID: then the line names no instance.
        AuditEvent e = AuditEvent.builder(AuditEvent.Kind.RECONCILE, when)
                .instanceId(Ids.isId(instanceId) ? instanceId : null).outcome(action.code()).build();
        if (!audit.record(e)) {
            LOG.log(System.Logger.Level.ERROR, "app: the audit line of a reconciliation action could not be written");
        }
    }
}
