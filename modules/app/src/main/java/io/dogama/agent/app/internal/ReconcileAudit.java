package io.dogama.agent.app.internal;

import io.dogama.agent.audit.AuditEvent;
import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.core.Ids;
import io.dogama.agent.lifecycle.Reconciliations;

/** Writes each start-up reconciliation action to the audit log, durably (it may have changed a container). */
final class ReconcileAudit implements Reconciliations {
    private static final System.Logger LOG = System.getLogger(ReconcileAudit.class.getName());

    private final AuditLog audit;

    ReconcileAudit(AuditLog audit) {
        this.audit = audit;
    }

    @Override
    public void reconciled(String instanceId, Action action) {
        // A tampered record's key may not even be an ID: then the line names no instance.
        AuditEvent e = AuditEvent.builder(AuditEvent.Kind.RECONCILE, "startup")
                .instanceId(Ids.isId(instanceId) ? instanceId : null).outcome(action.code()).build();
        if (!audit.record(e)) {
            LOG.log(System.Logger.Level.ERROR, "app: the audit line of a reconciliation action could not be written");
        }
    }
}
