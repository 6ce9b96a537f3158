package io.dogama.agent.auth;

import java.util.ArrayList;
import java.util.List;

/**
 * The request-signing secrets loaded by {@link SecretFile#load}: the current secret and, during a
 * rotation, the previous one. The key bytes never leave this module: there is no accessor, and
 * {@link #toString()} says only how many secrets there are.
 */
public final class Secrets {
    private final List<byte[]> keys;

    private Secrets(List<byte[]> keys) {
        this.keys = keys;
    }

    /**
     * Copies decoded keys; for {@link SecretFile} only.
     *
     * @param decoded current key first, then the previous one if any
     * @return the secrets
     */
    static Secrets of(List<byte[]> decoded) {
        List<byte[]> copies = new ArrayList<>(decoded.size());
        for (byte[] key : decoded) {
            copies.add(key.clone());
        }
        return new Secrets(List.copyOf(copies));
    }

    /** @return copies of the keys, current first; package-private so that only {@link Authenticator} sees them */
    List<byte[]> keys() {
        List<byte[]> copies = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            copies.add(key.clone());
        }
        return copies;
    }

    /** @return 1, or 2 while a previous secret is still accepted */
    public int count() {
        return keys.size();
    }

    /** @return a redacted description that never contains key material */
    @Override
    public String toString() {
        return "Secrets[count=" + keys.size() + ", redacted]";
    }
}
