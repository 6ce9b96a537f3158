import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.compiler.CompilerUtils;

/**
 * Build step of the runtime image (run by jlink/pom.xml with the source launcher, on the class path).
 *
 * <p>Chronicle Map generates and compiles a class ({@code VanillaGlobalMutableState$$Native}, the
 * layout of every map's header) the first time a map is created or opened. Its in-process javac
 * cannot compile into a named module ("package exists in another module"), so inside the image
 * that fails. On the class path it works: this program creates, reopens and recovers a map of the
 * registry's shape ({@code ChronicleMap<String, byte[]>}, persisted), then writes every class
 * Chronicle compiled meanwhile to the output directory. The build adds them to the chronicle-map
 * jar; at run time Chronicle finds them by name and compiles nothing.
 *
 * <p>Arguments: the output directory for the class files, a scratch directory for the map file.
 * Exits non-zero when Chronicle compiled nothing (its code generation changed: look again).
 */
public final class ChronicleNativeClasses {
    private ChronicleNativeClasses() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        Path scratch = Files.createDirectories(Path.of(args[1]));
        File file = scratch.resolve("shape.dat").toFile();
        Files.deleteIfExists(file.toPath());

        try (ChronicleMap<String, byte[]> map = shape().createPersistedTo(file)) {
            map.put("instance-0000000001", new byte[700]);
        }
        try (ChronicleMap<String, byte[]> map = shape().createPersistedTo(file)) {
            map.get("instance-0000000001");
        }
        try (ChronicleMap<String, byte[]> map = shape().recoverPersistedTo(file, true)) {
            map.remove("instance-0000000001");
        }
        Files.delete(file.toPath());

        Map<String, byte[]> compiled = new TreeMap<>();
        CompilerUtils.CACHED_COMPILER.updateFileManagerForClassLoader(
                ClassLoader.getSystemClassLoader(), fm -> compiled.putAll(fm.getAllBuffers()));
        if (compiled.isEmpty()) {
            System.err.println("chronicle-native: Chronicle compiled no class; its code generation changed");
            System.exit(1);
        }
        compiled.forEach((name, bytes) -> {
            Path target = out.resolve(name.replace('.', '/') + ".class");
            try {
                Files.createDirectories(target.getParent());
                Files.write(target, bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            System.out.println("chronicle-native: " + name + " (" + bytes.length + " bytes)");
        });
    }

    /** The registry's map shape; the generated header class does not depend on the sizes. */
    private static ChronicleMapBuilder<String, byte[]> shape() {
        return ChronicleMap.of(String.class, byte[].class)
                .name("dogama-build-shape")
                .entries(1_000)
                .averageKey("instance-0000000001")
                .averageValueSize(512);
    }
}
