package io.dogama.agent.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SecretFileTest {
    private static final String LINE = Vectors.load().secretLine();
    private static final String OTHER = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[40]);

    @TempDir
    Path dir;

    private AuthException refused(String content) throws IOException {
        Path file = Vectors.secretFile(dir, content);
        return assertThrows(AuthException.class, () -> SecretFile.load(file));
    }

    @Test
    void oneLineWithOrWithoutFinalNewline() throws Exception {
        assertEquals(1, SecretFile.load(Vectors.secretFile(dir, LINE)).count());
        assertEquals(1, SecretFile.load(Vectors.secretFile(dir, LINE + "\n")).count());
    }

    @Test
    void twoLinesAreCurrentAndPrevious() throws Exception {
        assertEquals(2, SecretFile.load(Vectors.secretFile(dir, LINE + "\n" + OTHER + "\n")).count());
    }

    @Test
    void paddedBase64UrlIsAccepted() throws Exception {
        String padded = Base64.getUrlEncoder().encodeToString(new byte[32]);
        assertTrue(padded.endsWith("="));
        assertEquals(1, SecretFile.load(Vectors.secretFile(dir, padded + "\n")).count());
    }

    @Test
    void ownerOnlyReadableModeIsAccepted() throws Exception {
        Path file = Vectors.secretFile(dir, LINE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r-----"));
        assertEquals(1, SecretFile.load(file).count());
    }

    /**
     * Group read is for the agent's own group (compose gives the secret the socket's group, the agent's): a secret
     * readable by another group gave its members the key to the Docker socket. Giving a file another group needs root,
     * as the tests run (scripts/test, .ci/run).
     */
    @Test
    void aSecretReadableByAGroupTheAgentIsNotInIsRefused() throws Exception {
        Path file = Vectors.secretFile(dir, LINE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r-----"));
        Files.setAttribute(file, "unix:gid", 4242);
        AuthException e = assertThrows(AuthException.class, () -> SecretFile.load(file));
        assertTrue(e.getMessage().contains("readable by its group 4242, which the agent's process is not in"),
                e.getMessage());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        assertEquals(1, SecretFile.load(file).count(), "the group does not matter without its read bit");
    }

    @Test
    void missingFileIsRefused() {
        AuthException e = assertThrows(AuthException.class, () -> SecretFile.load(dir.resolve("nope")));
        assertTrue(e.getMessage().startsWith("auth: "), e.getMessage());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void directoryIsRefused() {
        AuthException e = assertThrows(AuthException.class, () -> SecretFile.load(dir));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw-r--r--", "r-----r--", "rw----rw-", "rw--w----", "rw-----w-"})
    void worldReadableOrGroupOrWorldWritableIsRefused(String mode) throws IOException {
        Path file = Vectors.secretFile(dir, LINE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        AuthException e = assertThrows(AuthException.class, () -> SecretFile.load(file));
        assertTrue(e.getMessage().contains("must not be"), e.getMessage());
        assertFalse(e.getMessage().contains(LINE));
    }

    @Test
    void emptyFileIsRefused() throws IOException {
        assertTrue(refused("").getMessage().contains("is empty"));
        assertTrue(refused("\n").getMessage().contains("is empty"));
    }

    @Test
    void emptyOrBlankLinesAreRefused() throws IOException {
        assertTrue(refused(LINE + "\n\n").getMessage().contains("line 2 is empty"));
        assertTrue(refused("\n" + LINE).getMessage().contains("line 1 is empty"));
        assertTrue(refused(" " + LINE).getMessage().contains("line 1 is not base64url"));
        assertTrue(refused(LINE + " \n").getMessage().contains("line 1 is not base64url"));
    }

    @Test
    void carriageReturnIsRefused() throws IOException {
        AuthException e = refused(LINE + "\r\n");
        assertTrue(e.getMessage().contains("carriage return"), e.getMessage());
    }

    @Test
    void moreThanTwoLinesAreRefused() throws IOException {
        AuthException e = refused(LINE + "\n" + OTHER + "\n" + LINE + "\n");
        assertTrue(e.getMessage().contains("more than 2 lines"), e.getMessage());
    }

    @Test
    void shortSecretIsRefused() throws IOException {
        String short31 = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[31]);
        AuthException e = refused(short31);
        assertTrue(e.getMessage().contains("fewer than 32 bytes"), e.getMessage());
        AuthException second = refused(LINE + "\n" + short31);
        assertTrue(second.getMessage().contains("line 2"), second.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+/", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=A",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8===", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\tA",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AA"})
    void nonBase64UrlIsRefused(String line) throws IOException {
        AuthException e = refused(line);
        assertTrue(e.getMessage().contains("not base64url"), e.getMessage());
    }

    @Test
    void nonAsciiIsRefused() throws IOException {
        Path file = dir.resolve("utf8");
        Files.write(file, ("é" + LINE).getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThrows(AuthException.class, () -> SecretFile.load(file));
    }

    @Test
    void oversizedFileIsRefusedUnread() throws IOException {
        AuthException e = refused(LINE + "A".repeat(SecretFile.MAX_FILE_BYTES));
        assertTrue(e.getMessage().contains("larger than"), e.getMessage());
    }

    /** The bound is the largest file accepted, not the smallest refused: 4096 bytes are read (a 3 KiB key). */
    @Test
    void aFileOfExactlyTheBoundIsRead() throws Exception {
        String second = "A".repeat(SecretFile.MAX_FILE_BYTES - LINE.length() - 1);
        assertEquals(0, second.length() % 4, "a base64url line without padding");
        Path file = Vectors.secretFile(dir, LINE + "\n" + second);
        assertEquals(SecretFile.MAX_FILE_BYTES, Files.size(file));
        assertEquals(2, SecretFile.load(file).count());
    }

    @Test
    void toStringNeverShowsKeyMaterial() throws Exception {
        Secrets secrets = SecretFile.load(Vectors.secretFile(dir, LINE + "\n" + OTHER));
        String text = secrets.toString();
        assertEquals("Secrets[count=2, redacted]", text);
        assertFalse(text.contains(LINE.substring(0, 8)));
    }
}
