package io.dogama.agent.client;

import io.dogama.agent.client.internal.Codec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A deployment plan (SPEC section 6), the body of {@link DogamaClient#create} and the {@code plan} of
 * {@link DogamaClient#replace}. The agent's schema is closed, and so is this record: it carries exactly the
 * plan's fields. Optional fields ({@code command}, {@code entrypoint}, {@code user}, {@code planDigest}) are
 * null when absent and are then omitted from the JSON, never sent as {@code null}.
 *
 * <p>The record only checks that required fields are present; every policy rule is the agent's to apply
 * (an invalid plan is answered {@code plan_rejected} with every violation).
 *
 * @param instanceId      instance ID (SPEC section 5)
 * @param templateId      template ID of the embedded catalog
 * @param templateVersion template version, {@code MAJOR.MINOR.PATCH}
 * @param image           the template's image reference
 * @param command         the template's command, or null for the template's
 * @param entrypoint      the template's entrypoint, or null for the template's
 * @param capAdd          exactly the template's added capabilities
 * @param env             environment, keys the template declares
 * @param mounts          one per mount the template declares
 * @param ports           published ports
 * @param resources       resource limits
 * @param user            numeric {@code UID:GID}, or null for the image's user
 * @param labels          custom labels
 * @param networks        approved networks to join
 * @param planDigest      {@code sha256:<hex>} the agent must compute too, or null
 */
public record Plan(String instanceId, String templateId, String templateVersion, String image, List<String> command,
        List<String> entrypoint, List<String> capAdd, Map<String, String> env, List<Mount> mounts, List<Port> ports,
        Resources resources, String user, Map<String, String> labels, List<String> networks, String planDigest) {

    /**
     * Copies every list and map (unmodifiable, order kept).
     *
     * @throws NullPointerException if a required component, or an element, is null
     */
    public Plan {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(templateId, "templateId");
        Objects.requireNonNull(templateVersion, "templateVersion");
        Objects.requireNonNull(image, "image");
        command = command == null ? null : List.copyOf(command);
        entrypoint = entrypoint == null ? null : List.copyOf(entrypoint);
        capAdd = List.copyOf(Objects.requireNonNull(capAdd, "capAdd"));
        env = copy(Objects.requireNonNull(env, "env"));
        mounts = List.copyOf(Objects.requireNonNull(mounts, "mounts"));
        ports = List.copyOf(Objects.requireNonNull(ports, "ports"));
        Objects.requireNonNull(resources, "resources");
        labels = copy(Objects.requireNonNull(labels, "labels"));
        networks = List.copyOf(Objects.requireNonNull(networks, "networks"));
    }

    private static Map<String, String> copy(Map<String, String> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value")));
        return Collections.unmodifiableMap(out);
    }

    /** @return a builder with empty lists and maps and no optional field */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this plan's values, e.g. to change one field */
    public Builder toBuilder() {
        Builder b = new Builder().instanceId(instanceId).templateId(templateId).templateVersion(templateVersion)
                .image(image).command(command).entrypoint(entrypoint).capAdd(capAdd).env(env).resources(resources)
                .user(user).labels(labels).networks(networks).planDigest(planDigest);
        return b.mounts(mounts).ports(ports);
    }

    /**
     * @param json a plan as JSON text, e.g. one the control plane stored
     * @return the plan
     * @throws IllegalArgumentException if the text is not a JSON object with exactly the plan's fields and
     *                                  their types (the message names the first field that is not)
     */
    public static Plan fromJson(String json) {
        return Codec.planFromJson(Objects.requireNonNull(json, "json"));
    }

    /** @return the plan as the JSON the agent receives: fields in SPEC order, absent optional fields omitted */
    public String toJson() {
        return Codec.planToJson(this);
    }

    /** Builds a {@link Plan}; every setter returns the builder. */
    public static final class Builder {
        private String instanceId;
        private String templateId;
        private String templateVersion;
        private String image;
        private List<String> command;
        private List<String> entrypoint;
        private List<String> capAdd = List.of();
        private Map<String, String> env = new LinkedHashMap<>();
        private final List<Mount> mounts = new ArrayList<>();
        private final List<Port> ports = new ArrayList<>();
        private Resources resources;
        private String user;
        private Map<String, String> labels = new LinkedHashMap<>();
        private List<String> networks = List.of();
        private String planDigest;

        private Builder() {
        }

        /** @param v instance ID @return this */
        public Builder instanceId(String v) {
            instanceId = v;
            return this;
        }

        /** @param v template ID @return this */
        public Builder templateId(String v) {
            templateId = v;
            return this;
        }

        /** @param v template version @return this */
        public Builder templateVersion(String v) {
            templateVersion = v;
            return this;
        }

        /** @param v image reference @return this */
        public Builder image(String v) {
            image = v;
            return this;
        }

        /** @param v command, or null to omit it @return this */
        public Builder command(List<String> v) {
            command = v;
            return this;
        }

        /** @param v entrypoint, or null to omit it @return this */
        public Builder entrypoint(List<String> v) {
            entrypoint = v;
            return this;
        }

        /** @param v added capabilities @return this */
        public Builder capAdd(List<String> v) {
            capAdd = v;
            return this;
        }

        /** @param v the whole environment @return this */
        public Builder env(Map<String, String> v) {
            env = new LinkedHashMap<>(v);
            return this;
        }

        /** @param key name @param value value @return this */
        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        /** @param v every mount, replacing those set so far @return this */
        public Builder mounts(List<Mount> v) {
            mounts.clear();
            mounts.addAll(v);
            return this;
        }

        /** @param v every port, replacing those set so far @return this */
        public Builder ports(List<Port> v) {
            ports.clear();
            ports.addAll(v);
            return this;
        }

        /** @param v one more mount @return this */
        public Builder mount(Mount v) {
            mounts.add(v);
            return this;
        }

        /** @param v one more port @return this */
        public Builder port(Port v) {
            ports.add(v);
            return this;
        }

        /** @param v resource limits @return this */
        public Builder resources(Resources v) {
            resources = v;
            return this;
        }

        /** @param v numeric {@code UID:GID}, or null to omit it @return this */
        public Builder user(String v) {
            user = v;
            return this;
        }

        /** @param v the whole label map @return this */
        public Builder labels(Map<String, String> v) {
            labels = new LinkedHashMap<>(v);
            return this;
        }

        /** @param key key @param value value @return this */
        public Builder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        /** @param v networks @return this */
        public Builder networks(List<String> v) {
            networks = v;
            return this;
        }

        /** @param v {@code sha256:<hex>}, or null to omit it @return this */
        public Builder planDigest(String v) {
            planDigest = v;
            return this;
        }

        /**
         * @return the plan
         * @throws NullPointerException if a required field was not set
         */
        public Plan build() {
            return new Plan(instanceId, templateId, templateVersion, image, command, entrypoint, capAdd, env, mounts,
                    ports, resources, user, labels, networks, planDigest);
        }
    }
}
