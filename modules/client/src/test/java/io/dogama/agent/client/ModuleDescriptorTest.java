package io.dogama.agent.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Golden test of the client's module descriptor: what a control plane's module graph gets. */
class ModuleDescriptorTest {
    @Test
    void exportsOnlyItsApiAndRequiresOnlyTheHttpClientAndJacksonJr() {
        Module module = DogamaClient.class.getModule();
        assertTrue(module.isNamed(), "the tests run on the module path");
        ModuleDescriptor d = module.getDescriptor();
        assertEquals("io.dogama.agent.client", d.name());
        assertEquals(Set.of("io.dogama.agent.client"),
                d.exports().stream().map(e -> e.source() + (e.isQualified() ? " to " + e.targets() : ""))
                        .collect(Collectors.toSet()));
        assertEquals(new TreeSet<>(Set.of("java.base", "java.net.http", "com.fasterxml.jackson.jr.ob")),
                d.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toCollection(TreeSet::new)));
        assertTrue(d.requires().stream().noneMatch(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                "no library type is part of the API");
        assertEquals(Set.of(), d.opens());
        assertEquals(Set.of(), d.uses());
        assertEquals(Set.of(), d.provides());
    }
}
