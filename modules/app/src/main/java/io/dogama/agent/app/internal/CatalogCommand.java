package io.dogama.agent.app.internal;

import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Template;
import java.io.PrintStream;

/**
 * {@code dogama-agent catalog}: the templates embedded in this agent, one line each:
 * {@code <templateId> <version> <image> imageId=<id|-> manifestDigest=<digest|->}, sorted by ID and
 * version. Exit 0, or 2 when the embedded catalog is invalid (the agent would refuse to start).
 */
final class CatalogCommand {
    private CatalogCommand() {
    }

    static int run(PrintStream out, PrintStream err) {
        Catalog catalog;
        try {
            catalog = Catalog.embedded();
        } catch (PolicyException e) {
            err.println("catalog: the embedded catalog is invalid: " + e.getMessage());
            return ValidateCommand.USAGE;
        }
        catalog.templates().stream()
                .sorted(java.util.Comparator.comparing(Template::id).thenComparing(Template::version))
                .forEach(t -> out.println(t.id() + " " + t.version() + " " + t.image() + " imageId="
                        + t.imageId().orElse("-") + " manifestDigest=" + t.manifestDigest().orElse("-")));
        return 0;
    }
}
