/**
 * The tamper-evident audit log (SPEC section 14): hash-chained JSON lines under an agent-local key,
 * written by one thread, rotated by size, and verified line by line.
 */
module io.dogama.agent.audit {
    // instance IDs are checked with the one definition of their syntax
    requires io.dogama.agent.core;

    exports io.dogama.agent.audit;
}
