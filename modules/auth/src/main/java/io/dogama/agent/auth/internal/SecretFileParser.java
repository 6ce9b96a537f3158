package io.dogama.agent.auth.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/** Parses the content of the secret file; reasons never quote the content. */
public final class SecretFileParser {

    /** The outcome of a parse. */
    public sealed interface Result {
        /**
         * Valid content.
         *
         * @param keys decoded keys, current first; the caller wipes them after use
         */
        record Parsed(List<byte[]> keys) implements Result {
        }

        /**
         * Invalid content.
         *
         * @param reason which rule failed, without any content
         */
        record Invalid(String reason) implements Result {
        }
    }

    private SecretFileParser() {
    }

    /**
     * @param content  the raw file bytes
     * @param minBytes minimum decoded key length
     * @param maxLines maximum number of secrets
     * @return the keys or the reason they were refused
     */
    public static Result parse(byte[] content, int minBytes, int maxLines) {
        int end = content.length;
        if (end > 0 && content[end - 1] == '\n') {
            end--; // one final newline is the usual file ending, not an empty line
        }
        if (end == 0) {
            return new Result.Invalid("is empty");
        }
        List<byte[]> keys = new ArrayList<>();
        int lineStart = 0;
        int lineNumber = 1;
        for (int i = 0; i <= end; i++) {
            if (i < end && content[i] != '\n') {
                continue;
            }
            if (lineNumber > maxLines) {
                wipe(keys);
                return new Result.Invalid("has more than " + maxLines + " lines");
            }
            Result.Invalid problem = check(content, lineStart, i, lineNumber);
            if (problem != null) {
                wipe(keys);
                return problem;
            }
            byte[] decoded = decode(content, lineStart, i);
            if (decoded == null) {
                wipe(keys);
                return new Result.Invalid("line " + lineNumber + " is not base64url");
            }
            if (decoded.length < minBytes) {
                Arrays.fill(decoded, (byte) 0);
                wipe(keys);
                return new Result.Invalid("line " + lineNumber + " decodes to fewer than " + minBytes + " bytes");
            }
            keys.add(decoded);
            lineStart = i + 1;
            lineNumber++;
        }
        return new Result.Parsed(keys);
    }

    private static Result.Invalid check(byte[] content, int from, int to, int lineNumber) {
        if (from == to) {
            return new Result.Invalid("line " + lineNumber + " is empty");
        }
        int padding = 0;
        for (int i = from; i < to; i++) {
            byte b = content[i];
            if (b == '\r') {
                return new Result.Invalid("line " + lineNumber + " ends with a carriage return (CRLF is not accepted)");
            }
            if (b == '=') {
                padding++;
                continue;
            }
            if (padding > 0 || !isBase64Url(b)) {
                return new Result.Invalid("line " + lineNumber + " is not base64url");
            }
        }
        return padding > 2 ? new Result.Invalid("line " + lineNumber + " is not base64url") : null;
    }

    private static byte[] decode(byte[] content, int from, int to) {
        byte[] line = Arrays.copyOfRange(content, from, to);
        try {
            return Base64.getUrlDecoder().decode(line);
        } catch (IllegalArgumentException e) {
            return null;
        } finally {
            Arrays.fill(line, (byte) 0);
        }
    }

    static boolean isBase64Url(int b) {
        return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-' || b == '_';
    }

    private static void wipe(List<byte[]> keys) {
        keys.forEach(k -> Arrays.fill(k, (byte) 0));
    }
}
