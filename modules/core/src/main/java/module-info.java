/**
 * Shared values of the DoGaMa agent: identifiers, the deployment plan as parsed, the approved
 * container spec, instance states and problem codes, and the one definition of the agent's key files
 * ({@code KeyFiles}: the registry's and the audit's) and of its lock files ({@code LockFiles}: the registry's,
 * the nonce journal's and the audit log's). Depends on nothing but {@code java.base}.
 */
module io.dogama.agent.core {
    exports io.dogama.agent.core;
}
