package io.dogama.agent.core;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** The technical labels of SPEC section 5 and the custom-label syntax. */
public final class Labels {
    /** Marks a container as managed by the agent (proves nothing on its own). */
    public static final String MANAGED = "io.dogama.managed";
    /** The instance ID. */
    public static final String INSTANCE_ID = "io.dogama.instance-id";
    /** The template ID. */
    public static final String TEMPLATE_ID = "io.dogama.template-id";
    /** The template version. */
    public static final String TEMPLATE_VERSION = "io.dogama.template-version";
    /** The plan digest, {@code sha256:<hex>}. */
    public static final String PLAN_DIGEST = "io.dogama.plan-digest";
    /** Most custom labels a plan may carry. */
    public static final int MAX_CUSTOM = 32;
    /** Longest custom label value. */
    public static final int MAX_VALUE_LENGTH = 256;
    /** Custom label key syntax. */
    public static final Pattern CUSTOM_KEY = Pattern.compile("^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$");

    private Labels() {
    }

    /**
     * Tells whether a key lies in a reserved namespace, in any letter case.
     *
     * @param key label key
     * @return true for {@code dogama.*} and {@code io.dogama.*}
     */
    public static boolean isReserved(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.startsWith("dogama.") || k.startsWith("io.dogama.");
    }

    /**
     * Merges custom labels first and the technical labels last, so nothing can override them.
     *
     * @param custom          validated custom labels
     * @param instanceId      instance
     * @param templateId      template ID
     * @param templateVersion template version
     * @param planDigest      plan digest
     * @return the complete label set
     */
    public static Map<String, String> merge(Map<String, String> custom, InstanceId instanceId, String templateId,
            String templateVersion, String planDigest) {
        Map<String, String> all = new TreeMap<>();
        custom.forEach((k, v) -> {
            if (!isReserved(k)) {
                all.put(k, v);
            }
        });
        all.putAll(technical(instanceId, templateId, templateVersion, planDigest));
        return all;
    }

    /**
     * The five technical labels for a container.
     *
     * @param instanceId      instance
     * @param templateId      template ID
     * @param templateVersion template version
     * @param planDigest      plan digest
     * @return the labels
     */
    public static Map<String, String> technical(InstanceId instanceId, String templateId, String templateVersion,
            String planDigest) {
        return Map.of(MANAGED, "true", INSTANCE_ID, instanceId.value(), TEMPLATE_ID, templateId,
                TEMPLATE_VERSION, templateVersion, PLAN_DIGEST, planDigest);
    }
}
