package io.dogama.agent.policy;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.policy.internal.PlanReader;

/**
 * Parses plan bodies with the closed schema of SPEC section 6. Never throws on bad input: the result
 * is a {@link Plan}, or {@code plan_rejected} with EVERY schema violation (field path and rule:
 * {@code unknown_field}, {@code duplicate_key}, {@code wrong_type}, {@code null_value},
 * {@code missing_field}, {@code too_large}, {@code out_of_range}, {@code invalid_string}), or
 * {@code malformed_request} when the bytes are not one JSON value (syntax, invalid UTF-8, trailing
 * data, nesting deeper than {@link #MAX_DEPTH}). The root's field path is {@code $}; others look like
 * {@code mounts[0].source} or {@code env.GREETING}.
 */
public final class PlanParser {
    /** Largest body parsed, in bytes (the HTTP layer's limit, repeated so this parser is safe alone). */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** Deepest JSON nesting accepted; a plan needs 3. */
    public static final int MAX_DEPTH = 16;
    /** Longest string value or key, in UTF-16 units (paths, env values, args). */
    public static final int MAX_STRING_LENGTH = 4096;
    /** Most command or entrypoint arguments. */
    public static final int MAX_ARGS = 128;
    /** Most capAdd entries. */
    public static final int MAX_CAP_ADD = 16;
    /** Most env entries. */
    public static final int MAX_ENV = 128;
    /** Most mounts. */
    public static final int MAX_MOUNTS = 32;
    /** Most port bindings. */
    public static final int MAX_PORTS = 64;
    /** Most label entries read (the policy limit of 32 is checked later, as {@code too_many_labels}). */
    public static final int MAX_LABELS = 128;
    /** Most networks. */
    public static final int MAX_NETWORKS = 16;

    private PlanParser() {
    }

    /**
     * @param json the raw plan body
     * @return the plan, {@code plan_rejected} with all schema violations, or {@code malformed_request}
     */
    public static Outcome<Plan> parse(byte[] json) {
        return PlanReader.parse(json);
    }

    /**
     * Parses {@code {"plan":{...},"expectedRevision":n}}; violations inside the plan carry the
     * {@code plan.} prefix (e.g. {@code plan.mounts[0].source}).
     *
     * @param json the raw replace body
     * @return the request, {@code plan_rejected}, or {@code malformed_request}
     */
    public static Outcome<ReplaceRequest> parseReplace(byte[] json) {
        return PlanReader.parseReplace(json);
    }
}
