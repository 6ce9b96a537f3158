package io.dogama.agent.audit;

import java.nio.file.Path;
import java.util.Objects;

/** The result of {@link AuditLog#verify}: the whole chain holds, or where it first breaks. */
public sealed interface Verification permits Verification.Intact, Verification.Broken {

    /**
     * Every line of every file verifies and the sequence runs 1, 2, 3, ... without a gap.
     *
     * @param files   the number of files
     * @param lines   the number of lines
     * @param lastSeq the last sequence number (0 for an empty log)
     */
    record Intact(int files, long lines, long lastSeq) implements Verification {
    }

    /**
     * The first line where the chain breaks; every line before it verified.
     *
     * @param file   the file holding it
     * @param line   its 1-based line number in that file
     * @param seq    the sequence number it states, or -1 if it has none that can be read
     * @param reason what is wrong: changed, inserted, removed or reordered (see {@link AuditLog#verify})
     */
    record Broken(Path file, long line, long seq, String reason) implements Verification {
        /** Rejects nulls. */
        public Broken {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(reason, "reason");
        }

        /** @return one line for an operator: file, line number, sequence number, reason */
        public String describe() {
            return file + ":" + line + ": seq " + (seq < 0 ? "?" : Long.toString(seq)) + ": " + reason;
        }
    }
}
