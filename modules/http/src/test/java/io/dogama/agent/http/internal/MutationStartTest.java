package io.dogama.agent.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dogama.agent.auth.AuthDecision;
import io.dogama.agent.core.ProblemCode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A mutation runs only when both its begin line and its nonce are on disk; the begin line is written
 * before the nonce is waited for (so the two forced writes overlap), and the nonce is always waited for,
 * so that no answer is given before it is settled.
 */
class MutationStartTest {
    private static final AuthDecision ACCEPTED = new AuthDecision.Accepted(false);
    private final List<String> calls = new ArrayList<>();

    private BooleanSupplier begin(boolean written) {
        return () -> {
            calls.add("begin");
            return written;
        };
    }

    private Supplier<AuthDecision> settle(AuthDecision decision) {
        return () -> {
            calls.add("settle");
            return decision;
        };
    }

    private static AuthDecision rejected(ProblemCode code) {
        return new AuthDecision.Rejected(code);
    }

    @Test
    void itRunsWhenBothAreOnDiskAndTheBeginLineIsWrittenBeforeTheNonceIsWaitedFor() {
        assertEquals(new MutationStart.Go(), MutationStart.start(begin(true), settle(ACCEPTED)));
        assertEquals(List.of("begin", "settle"), calls);
    }

    @Test
    void aNonceNotOnDiskInTimeStopsItAfterItsBeginLine() {
        assertEquals(new MutationStart.Refused(ProblemCode.BUSY, true),
                MutationStart.start(begin(true), settle(rejected(ProblemCode.BUSY))));
    }

    @Test
    void aNonceThatCouldNotBeWrittenStopsItAfterItsBeginLine() {
        assertEquals(new MutationStart.Refused(ProblemCode.INTERNAL_ERROR, true),
                MutationStart.start(begin(true), settle(rejected(ProblemCode.INTERNAL_ERROR))));
    }

    @Test
    void aBeginLineThatCouldNotBeWrittenStopsItAndTheNonceIsStillSettledFirst() {
        assertEquals(new MutationStart.Refused(ProblemCode.BUSY, false),
                MutationStart.start(begin(false), settle(ACCEPTED)));
        assertEquals(List.of("begin", "settle"), calls, "the answer must wait for the nonce");
    }

    @Test
    void whenBothFailTheNoncesRefusalIsTheAnswer() {
        assertEquals(new MutationStart.Refused(ProblemCode.INTERNAL_ERROR, false),
                MutationStart.start(begin(false), settle(rejected(ProblemCode.INTERNAL_ERROR))));
    }
}
