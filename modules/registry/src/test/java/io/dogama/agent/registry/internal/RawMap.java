package io.dogama.agent.registry.internal;

import java.nio.file.Path;
import java.util.function.Consumer;
import net.openhft.chronicle.map.ChronicleMap;

/** Direct access to a closed registry's map file, as an attacker (or a bug) with file access would have. */
final class RawMap {
    private RawMap() {
    }

    static void edit(Path dataDir, Consumer<ChronicleMap<String, byte[]>> edit) throws Exception {
        ChronicleMap<String, byte[]> m = ChronicleRegistry.builder(10)
                .createPersistedTo(dataDir.resolve(ChronicleRegistry.MAP_FILE).toFile());
        try {
            edit.accept(m);
        } finally {
            m.close();
        }
    }

    static byte[] get(Path dataDir, String key) throws Exception {
        byte[][] out = new byte[1][];
        edit(dataDir, m -> out[0] = m.get(key));
        return out[0];
    }

    static void put(Path dataDir, String key, byte[] value) throws Exception {
        edit(dataDir, m -> m.put(key, value));
    }
}
