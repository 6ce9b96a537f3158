package io.dogama.agent.registry;

import io.dogama.agent.core.Ids;
import io.dogama.agent.core.InstanceState;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One registry record (SPEC section 9): everything the agent needs to recognise, drive and recreate
 * the container of one instance. A value: immutable, compared by content, validated on construction.
 *
 * <p>{@code revision} is the instance's API revision (SPEC section 2, {@code expectedRevision}); it
 * only changes when the lifecycle commits a replace. It is NOT the compare-and-set token of the
 * registry: that is the {@code generation} reported by {@link Lookup.Found} and
 * {@link CasResult.Stored}, which the registry bumps on every write.
 *
 * @param formatVersion   record format version, always {@link #CURRENT_FORMAT}
 * @param instanceId      the instance ID (the registry key)
 * @param containerId     the expected Docker container ID (64 lower-case hex), empty while
 *                        {@code CREATING} before the engine returned it
 * @param containerName   the expected container name, e.g. {@code dogama-<id>}
 * @param templateId      template ID
 * @param templateVersion template version
 * @param planDigest      {@code sha256:<64 hex>}
 * @param canonicalPlan   the validated plan in canonical JSON (SPEC section 6), needed to recreate the
 *                        container; at most {@link #MAX_PLAN_BYTES} UTF-8 bytes
 * @param state           the lifecycle state
 * @param revision        the API revision, at least 0
 * @param prior           during a replace (and its rollback): the plan and container being replaced
 * @param step            free-form crash-recovery marker of the lifecycle (which step of a multi-step
 *                        operation was reached): {@code [A-Za-z0-9._:-]}, 1 to {@link #MAX_STEP_LENGTH}
 *                        characters
 */
public record InstanceRecord(
        int formatVersion,
        String instanceId,
        Optional<String> containerId,
        String containerName,
        String templateId,
        String templateVersion,
        String planDigest,
        String canonicalPlan,
        InstanceState state,
        long revision,
        Optional<Prior> prior,
        Optional<String> step) {

    /** The only record format this build reads and writes. */
    public static final int CURRENT_FORMAT = 1;
    /**
     * Upper bound of a canonical plan, in UTF-8 bytes: twice the 64 KiB request body limit of SPEC
     * section 3, because canonicalization may lengthen numbers.
     */
    public static final int MAX_PLAN_BYTES = 128 * 1024;
    /** Upper bound of the {@code step} marker, in characters. */
    public static final int MAX_STEP_LENGTH = 64;
    /** Upper bound of a container name (Docker allows more; ours are {@code dogama-<id>[-r<n>]}). */
    public static final int MAX_CONTAINER_NAME_LENGTH = 128;

    private static final Pattern CONTAINER_ID = Pattern.compile("^[0-9a-f]{64}$");
    private static final Pattern CONTAINER_NAME = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9_.-]*$");
    private static final Pattern DIGEST = Pattern.compile("^sha256:[0-9a-f]{64}$");
    private static final Pattern STEP = Pattern.compile("^[A-Za-z0-9._:-]+$");

    /**
     * Validates every field.
     *
     * @throws IllegalArgumentException if a field is malformed or over its limit (the message names
     *                                  the field, never its value)
     * @throws NullPointerException     if a component is null
     */
    public InstanceRecord {
        if (formatVersion != CURRENT_FORMAT) {
            throw new IllegalArgumentException("registry: unsupported record format");
        }
        require(Ids.isId(instanceId), "instanceId");
        checkContainerId(containerId);
        checkContainerName(containerName);
        require(Ids.isId(templateId), "templateId");
        require(Ids.isVersion(templateVersion), "templateVersion");
        checkDigest(planDigest);
        checkPlan(canonicalPlan);
        Objects.requireNonNull(state, "state");
        require(revision >= 0, "revision");
        Objects.requireNonNull(prior, "prior");
        Objects.requireNonNull(step, "step");
        step.ifPresent(s -> require(s.length() <= MAX_STEP_LENGTH && STEP.matcher(s).matches(), "step"));
    }

    /**
     * A record in the {@link #CURRENT_FORMAT}.
     *
     * @param instanceId      see the record components
     * @param containerId     see the record components
     * @param containerName   see the record components
     * @param templateId      see the record components
     * @param templateVersion see the record components
     * @param planDigest      see the record components
     * @param canonicalPlan   see the record components
     * @param state           see the record components
     * @param revision        see the record components
     * @param prior           see the record components
     * @param step            see the record components
     * @throws IllegalArgumentException if a field is malformed or over its limit
     */
    public InstanceRecord(String instanceId, Optional<String> containerId, String containerName, String templateId,
            String templateVersion, String planDigest, String canonicalPlan, InstanceState state, long revision,
            Optional<Prior> prior, Optional<String> step) {
        this(CURRENT_FORMAT, instanceId, containerId, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, state, revision, prior, step);
    }

    /**
     * @param next the new state
     * @return a copy in state {@code next}
     */
    public InstanceRecord withState(InstanceState next) {
        return new InstanceRecord(instanceId, containerId, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, next, revision, prior, step);
    }

    /**
     * @param next the new expected container ID
     * @return a copy with {@code next} as container ID
     */
    public InstanceRecord withContainerId(Optional<String> next) {
        return new InstanceRecord(instanceId, next, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, state, revision, prior, step);
    }

    /**
     * @param next the new prior, or empty to drop it
     * @return a copy with {@code next} as prior
     */
    public InstanceRecord withPrior(Optional<Prior> next) {
        return new InstanceRecord(instanceId, containerId, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, state, revision, next, step);
    }

    /**
     * @param next the new API revision
     * @return a copy at revision {@code next}
     */
    public InstanceRecord withRevision(long next) {
        return new InstanceRecord(instanceId, containerId, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, state, next, prior, step);
    }

    /**
     * A rollback's record: the prior's plan is current again and the prior is dropped (name, state,
     * revision and marker kept).
     *
     * @param p the prior
     * @return a copy whose plan is {@code p}'s, without a prior
     */
    public InstanceRecord withPlanOf(Prior p) {
        return new InstanceRecord(instanceId, containerId, containerName, p.templateId(), p.templateVersion(),
                p.planDigest(), p.canonicalPlan(), state, revision, Optional.empty(), step);
    }

    /**
     * @param next the new step marker, or empty to clear it
     * @return a copy with {@code next} as step marker
     */
    public InstanceRecord withStep(Optional<String> next) {
        return new InstanceRecord(instanceId, containerId, containerName, templateId, templateVersion, planDigest,
                canonicalPlan, state, revision, prior, next);
    }

    /**
     * What is being replaced, kept while {@code REPLACING} / {@code ROLLING_BACK} so that a rollback
     * (or the recovery after a crash) can restore it.
     *
     * @param canonicalPlan   the prior plan in canonical JSON, at most {@link #MAX_PLAN_BYTES} bytes
     * @param planDigest      its digest, {@code sha256:<64 hex>}
     * @param templateId      its template ID
     * @param templateVersion its template version
     * @param containerId     the prior container's ID, empty if it was gone
     * @param containerName   the name the prior container carries during the replace,
     *                        {@code dogama-<id>-r<revision>}
     * @param wasRunning      whether the prior container was running before the replace
     */
    public record Prior(String canonicalPlan, String planDigest, String templateId, String templateVersion,
            Optional<String> containerId, String containerName, boolean wasRunning) {
        /**
         * Validates every field.
         *
         * @throws IllegalArgumentException if a field is malformed or over its limit
         * @throws NullPointerException     if a component is null
         */
        public Prior {
            checkPlan(canonicalPlan);
            checkDigest(planDigest);
            require(Ids.isId(templateId), "prior.templateId");
            require(Ids.isVersion(templateVersion), "prior.templateVersion");
            checkContainerId(containerId);
            checkContainerName(containerName);
        }
    }

    private static void checkContainerId(Optional<String> containerId) {
        Objects.requireNonNull(containerId, "containerId");
        containerId.ifPresent(id -> require(CONTAINER_ID.matcher(id).matches(), "containerId"));
    }

    private static void checkContainerName(String name) {
        Objects.requireNonNull(name, "containerName");
        require(name.length() <= MAX_CONTAINER_NAME_LENGTH && CONTAINER_NAME.matcher(name).matches(),
                "containerName");
    }

    private static void checkDigest(String digest) {
        require(digest != null && DIGEST.matcher(digest).matches(), "planDigest");
    }

    private static void checkPlan(String plan) {
        Objects.requireNonNull(plan, "canonicalPlan");
        long bytes = utf8Length(plan);
        require(bytes > 0 && bytes <= MAX_PLAN_BYTES, "canonicalPlan");
    }

    /** UTF-8 length, or -1 for a lone surrogate (which would not survive the round trip through UTF-8). */
    private static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return -1;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static void require(boolean ok, String field) {
        if (!ok) {
            throw new IllegalArgumentException("registry: invalid record field " + field);
        }
    }
}
