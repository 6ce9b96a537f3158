package io.dogama.agent.auth;

import io.dogama.agent.auth.internal.NonceMemory;
import java.util.Objects;

/**
 * What {@link Authenticator#check} found before the disk was involved: a request refused at once, or an
 * authentic, fresh request whose nonce is new and remembered from now on, on its way to the disk.
 */
public sealed interface Check permits Check.Refused, Check.Authentic {

    /** @param decision the refusal to answer; the request must not be acted on */
    record Refused(AuthDecision.Rejected decision) implements Check {
        public Refused {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /**
     * The signature, timestamp and nonce are good, and no other request can use the nonce any more. Whether
     * this one may be acted on, or answered at all, is {@link #settle()}'s to say: nothing may be done for it
     * and no answer given before that returns {@link AuthDecision.Accepted}.
     */
    final class Authentic implements Check {
        private final NonceMemory.Claim claim;
        private final boolean previousSecret;

        Authentic(NonceMemory.Claim claim, boolean previousSecret) {
            this.claim = claim;
            this.previousSecret = previousSecret;
        }

        /** @return true when it was signed with the previous secret */
        public boolean previousSecret() {
            return previousSecret;
        }

        /**
         * Waits until the nonce is on disk, at most {@link NonceStore#DURABLE_WAIT} after the check. Every call
         * gives the first call's answer.
         *
         * @return {@link AuthDecision.Accepted}, or {@link AuthDecision.Rejected} {@code busy} (not on disk in
         *         time) or {@code internal_error} (it could not be written)
         */
        public AuthDecision settle() {
            return Authenticator.decision(claim.await(), previousSecret);
        }
    }
}
