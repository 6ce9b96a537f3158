package io.dogama.agent.core;

import static io.dogama.agent.core.Labels.INSTANCE_ID;
import static io.dogama.agent.core.Labels.MANAGED;
import static io.dogama.agent.core.Labels.PLAN_DIGEST;
import static io.dogama.agent.core.Labels.TEMPLATE_ID;
import static io.dogama.agent.core.Labels.TEMPLATE_VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Labels#merge}: the labels a container is made with. The technical labels are what the identity check reads
 * (SPEC 5), so no custom label may take their place, whatever reached the merge.
 */
class LabelsMergeTest {
    private static final InstanceId ID = new InstanceId("mc-1");
    private static final String TEMPLATE = "demo-http";
    private static final String VERSION = "1.0.0";
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private static Map<String, String> merged(Map<String, String> custom) {
        return Labels.merge(custom, ID, TEMPLATE, VERSION, DIGEST);
    }

    /**
     * A custom label under each technical key, with a value an impostor would want. Pins the technical labels put
     * last ({@code all.putAll(technical(...))}, Labels.merge) together with the reserved-key filter before it: with
     * neither, {@code io.dogama.managed=false} and {@code io.dogama.instance-id=x} reach the container.
     */
    @Test
    void customLabelsUnderTheTechnicalKeysAreReplacedByTheRealValues() {
        Map<String, String> custom = new LinkedHashMap<>();
        custom.put(MANAGED, "false");
        custom.put(INSTANCE_ID, "x");
        custom.put(TEMPLATE_ID, "other-template");
        custom.put(TEMPLATE_VERSION, "9.9.9");
        custom.put(PLAN_DIGEST, "sha256:" + "00".repeat(32));
        custom.put("owner", "team-a");

        assertEquals(Map.of(MANAGED, "true", INSTANCE_ID, "mc-1", TEMPLATE_ID, TEMPLATE, TEMPLATE_VERSION, VERSION,
                PLAN_DIGEST, DIGEST, "owner", "team-a"), merged(custom));
    }

    /**
     * The reserved namespaces beyond the five technical keys, in any letter case. Pins the filter
     * ({@code if (!isReserved(k))}, Labels.merge), which the technical labels put last cannot stand in for: these
     * keys are not among the ones they overwrite.
     */
    @Test
    void otherKeysOfTheReservedNamespacesAreDroppedInAnyLetterCase() {
        Map<String, String> custom = new LinkedHashMap<>();
        custom.put("io.dogama.role", "admin");
        custom.put("dogama.instance-id", "x");
        custom.put("IO.DOGAMA.MANAGED", "false");
        custom.put("Dogama.Plan-Digest", "sha256:" + "00".repeat(32));
        custom.put("owner", "team-a");

        assertEquals(Map.of(MANAGED, "true", INSTANCE_ID, "mc-1", TEMPLATE_ID, TEMPLATE, TEMPLATE_VERSION, VERSION,
                PLAN_DIGEST, DIGEST, "owner", "team-a"), merged(custom));
    }

    /** Without custom labels the container carries exactly the technical ones. */
    @Test
    void noCustomLabelsGiveExactlyTheTechnicalOnes() {
        assertEquals(Labels.technical(ID, TEMPLATE, VERSION, DIGEST), merged(Map.of()));
    }
}
