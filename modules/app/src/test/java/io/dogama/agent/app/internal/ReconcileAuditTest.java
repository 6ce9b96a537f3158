package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.audit.Verification;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reconciliation action is an audit line and a count whether the start-up ran it or a request ran it first on a
 * record an earlier request left unfinished; the line says which (SPEC 14).
 */
class ReconcileAuditTest {
    @TempDir
    Path dir;

    @Test
    void aRequestsRecoveryIsWrittenAndCountedAsTheStartsIs() throws Exception {
        Metrics metrics = Metrics.create();
        try (AuditLog audit = AuditLog.open(dir.resolve("audit"), 1 << 20, dir.resolve("audit.key"), Clock.systemUTC())) {
            ReconcileAudit told = new ReconcileAudit(audit, Instruments.reconciliations(metrics));
            told.reconciled("mc-0001", Reconciliations.Action.CREATE_UNDONE);
            told.resolvedByRequest("mc-0002", Reconciliations.Action.REPLACE_ROLLED_BACK);
            told.resolvedByRequest("mc-0002", Reconciliations.Action.LEFT_UNRESOLVED);
        }
        StringBuilder log = new StringBuilder();
        try (Stream<Path> files = Files.list(dir.resolve("audit"))) {
            for (Path f : files.sorted().toList()) {
                log.append(Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        for (String line : new String[] {
                "\"kind\":\"reconcile\",\"route\":\"startup\",\"instanceId\":\"mc-0001\",\"outcome\":\"create_undone\"",
                "\"kind\":\"reconcile\",\"route\":\"request\",\"instanceId\":\"mc-0002\",\"outcome\":\"replace_rolled_back\"",
                "\"kind\":\"reconcile\",\"route\":\"request\",\"instanceId\":\"mc-0002\",\"outcome\":\"left_unresolved\""}) {
            assertTrue(log.toString().contains(line), () -> "no line with " + line + " in\n" + log);
        }
        String scrape = metrics.scrape();
        assertTrue(scrape.contains("dogama_reconcile_actions_total{action=\"replace_rolled_back\"} 1"), scrape);
        assertTrue(scrape.contains("dogama_reconcile_actions_total{action=\"left_unresolved\"} 1"), scrape);
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir.resolve("audit"), dir.resolve("audit.key")));
    }
}
