package io.dogama.agent.policy.internal;

import io.dogama.agent.core.Ids;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PolicyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code catalog.lock}: one line {@code <sha256 hex>  <id>/<version>.json} per released file (lines
 * starting with {@code #} are comments). It is the catalog's index too, since module resources cannot
 * be listed. The build's test compares it with the folder (see {@link #verify(Path)}); the agent
 * compares it with the embedded bytes at start.
 */
public final class CatalogLock {
    private static final Pattern LINE = Pattern.compile("([0-9a-f]{64})  (([^/\\s]+)/([^/\\s]+)\\.json)");
    /** Files allowed at the top of the catalog folder besides template folders. */
    private static final List<String> TOP_LEVEL_FILES = List.of(Catalog.LOCK_FILE, "README.md");

    private CatalogLock() {
    }

    /**
     * @param text the lock file
     * @return hex SHA-256 by relative path, sorted
     * @throws PolicyException on a malformed or duplicate line
     */
    public static Map<String, String> parse(String text) throws PolicyException {
        Map<String, String> entries = new TreeMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches() || !Ids.isId(m.group(3)) || !Ids.isVersion(m.group(4))) {
                throw new PolicyException("catalog: " + Catalog.LOCK_FILE + " line " + (i + 1) + " is malformed");
            }
            if (entries.put(m.group(2), m.group(1)) != null) {
                throw new PolicyException("catalog: " + Catalog.LOCK_FILE + " lists " + m.group(2) + " twice");
            }
        }
        return entries;
    }

    /**
     * @param bytes file bytes
     * @return lower-case hex SHA-256
     */
    public static String hash(byte[] bytes) {
        return HexFormat.of().formatHex(Canonical.sha256(bytes));
    }

    /**
     * Compares a catalog folder with its lock: every template file must be listed with its exact
     * hash (a released file never changes; a new version is a new file, added to the lock), every
     * listed file must exist, and nothing else may lie in the folder.
     *
     * @param dir the catalog folder
     * @return every mismatch, as text; empty when the folder matches its lock
     */
    public static List<String> verify(Path dir) {
        List<String> problems = new ArrayList<>();
        Map<String, String> lock;
        try {
            lock = parse(Files.readString(dir.resolve(Catalog.LOCK_FILE), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return List.of(Catalog.LOCK_FILE + ": cannot be read");
        } catch (PolicyException e) {
            return List.of(e.getMessage());
        }
        Map<String, String> found = new TreeMap<>();
        try (Stream<Path> top = Files.list(dir)) {
            for (Path p : top.sorted().toList()) {
                String name = p.getFileName().toString();
                if (Files.isDirectory(p)) {
                    try (Stream<Path> files = Files.list(p)) {
                        for (Path f : files.sorted().toList()) {
                            String rel = name + "/" + f.getFileName();
                            if (!Files.isRegularFile(f) || !rel.endsWith(".json")) {
                                problems.add(rel + ": unexpected entry in the catalog");
                            } else {
                                found.put(rel, hash(Files.readAllBytes(f)));
                            }
                        }
                    }
                } else if (!TOP_LEVEL_FILES.contains(name)) {
                    problems.add(name + ": unexpected entry in the catalog");
                }
            }
        } catch (IOException e) {
            problems.add("catalog folder cannot be listed");
            return problems;
        }
        found.forEach((rel, hash) -> {
            String locked = lock.get(rel);
            if (locked == null) {
                problems.add(rel + ": not in " + Catalog.LOCK_FILE + " (add a new version's file to the lock)");
            } else if (!locked.equals(hash)) {
                problems.add(rel + ": released file changed (sha256 " + hash + ", locked " + locked
                        + "); publish a new version instead");
            }
        });
        lock.keySet().stream().filter(rel -> !found.containsKey(rel))
                .forEach(rel -> problems.add(rel + ": in " + Catalog.LOCK_FILE + " but missing"));
        return problems;
    }
}
