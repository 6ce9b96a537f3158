package io.dogama.agent.policy.internal;

import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Template;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Loads catalog files through the lock (which doubles as the index) and admits every template. */
public final class CatalogLoader {
    private static final System.Logger LOG = System.getLogger(CatalogLoader.class.getName());

    private CatalogLoader() {
    }

    /** A way to read one catalog file; empty-handed reads throw. */
    @FunctionalInterface
    interface Source {
        /** @return the file's bytes, or at least {@code max + 1} bytes if it holds more than {@code max} */
        byte[] read(String relative, int max) throws IOException;
    }

    /**
     * @return the templates embedded in this module
     * @throws PolicyException on any invalid file
     */
    public static List<Template> embedded() throws PolicyException {
        return load((rel, max) -> {
            try (InputStream in = Catalog.class.getResourceAsStream(Catalog.RESOURCE_DIR + rel)) {
                if (in == null) {
                    throw new IOException("missing resource");
                }
                return in.readNBytes(max + 1);
            }
        }, "embedded catalog");
    }

    /**
     * @param dir a catalog folder
     * @return its templates
     * @throws PolicyException on any invalid file
     */
    public static List<Template> directory(Path dir) throws PolicyException {
        return load((rel, max) -> {
            Path p = dir.resolve(rel);
            if (Files.size(p) > max) {
                return new byte[max + 1];
            }
            return Files.readAllBytes(p);
        }, "catalog " + dir);
    }

    private static List<Template> load(Source source, String what) throws PolicyException {
        byte[] lockBytes;
        try {
            lockBytes = source.read(Catalog.LOCK_FILE, Catalog.MAX_LOCK_BYTES);
        } catch (IOException e) {
            throw new PolicyException("catalog: " + Catalog.LOCK_FILE + " cannot be read from the " + what, e);
        }
        if (lockBytes.length > Catalog.MAX_LOCK_BYTES) {
            // Never parse a cut lock: a cut at a line's end would drop the templates after it without a word.
            throw new PolicyException("catalog: " + Catalog.LOCK_FILE + " is over " + Catalog.MAX_LOCK_BYTES
                    + " bytes");
        }
        Map<String, String> lock = CatalogLock.parse(new String(lockBytes, StandardCharsets.UTF_8));
        if (lock.size() > Catalog.MAX_TEMPLATES) {
            throw new PolicyException("catalog: more than " + Catalog.MAX_TEMPLATES + " templates");
        }
        List<Template> templates = new ArrayList<>();
        for (Map.Entry<String, String> e : lock.entrySet()) {
            byte[] bytes;
            try {
                bytes = source.read(e.getKey(), Catalog.MAX_TEMPLATE_BYTES);
            } catch (IOException x) {
                throw new PolicyException("catalog: " + e.getKey() + " is in the lock but cannot be read", x);
            }
            if (bytes.length > Catalog.MAX_TEMPLATE_BYTES) {
                throw new PolicyException("catalog: " + e.getKey() + " is over " + Catalog.MAX_TEMPLATE_BYTES
                        + " bytes");
            }
            if (!CatalogLock.hash(bytes).equals(e.getValue())) {
                throw new PolicyException("catalog: " + e.getKey() + " does not match its locked sha256");
            }
            templates.add(TemplateReader.read(bytes, e.getKey()));
        }
        if (templates.isEmpty()) {
            throw new PolicyException("catalog: no template");
        }
        LOG.log(System.Logger.Level.DEBUG, "policy: loaded {0} template(s) from the {1}", templates.size(), what);
        return templates;
    }
}
