package io.dogama.agent.app.internal;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.RegularFiles;
import io.dogama.agent.core.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the offline commands print for a refused plan: the problem JSON the API answers (SPEC section 4,
 * {@link ProblemCode#document}), so that a control plane can handle
 * both alike.
 */
final class OfflineProblem {
    /** Largest plan file read: the API's body limit. */
    static final int MAX_PLAN_BYTES = io.dogama.agent.policy.PlanParser.MAX_BODY_BYTES;

    private OfflineProblem() {
    }

    /** The plan file could not be read or is over the limit. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static byte[] readPlan(Path file) throws Unreadable {
        try {
            return RegularFiles.readAtMost(file, MAX_PLAN_BYTES);
        } catch (RegularFiles.TooLarge e) {
            throw new Unreadable("the plan file is larger than " + MAX_PLAN_BYTES + " bytes (the API answers 413)", null);
        } catch (IOException e) {
            throw new Unreadable("cannot read the plan file " + file, e);
        }
    }

    static String json(ProblemCode code, List<Violation> violations) {
        Map<String, Object> m = code.document(violations);
        try {
            return JSON.std.asString(m);
        } catch (IOException e) {
            throw new UncheckedIOException("app: cannot write a problem", e);
        }
    }
}
