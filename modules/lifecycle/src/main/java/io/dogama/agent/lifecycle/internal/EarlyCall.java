package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerUnavailableException;

/**
 * One engine call, on a virtual thread of its own, started before its answer is needed so that it runs
 * beside the caller's own work. Whoever starts one either takes its {@link #answer} or {@link #settle}s it
 * before returning: no call outlives the request that made it.
 *
 * @param <T> the answer
 */
final class EarlyCall<T> {
    /** An engine call. */
    @FunctionalInterface
    interface EngineCall<T> {
        T call() throws DockerException;
    }

    private final Thread thread;
    // Written by the call's thread before it ends, read only after joining it.
    private T answer;
    private Throwable failure;

    private EarlyCall(String name, EngineCall<T> call) {
        this.thread = Thread.ofVirtual().name(name).unstarted(() -> {
            try {
                answer = call.call();
            } catch (DockerException | RuntimeException | Error x) {
                failure = x;
            }
        });
    }

    static <T> EarlyCall<T> start(String name, EngineCall<T> call) {
        EarlyCall<T> c = new EarlyCall<>(name, call);
        c.thread.start();
        return c;
    }

    /** @return the engine's answer, or its failure */
    T answer() throws DockerException {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DockerUnavailableException("interrupted while waiting for the engine", e);
        }
        return switch (failure) {
            case null -> answer;
            case DockerException de -> throw de;
            case RuntimeException re -> throw re;
            case Error er -> throw er;
            default -> throw new IllegalStateException("lifecycle: unexpected failure", failure);
        };
    }

    /** Waits for the call to end (it is bounded by the engine client's deadline); its answer is not used. */
    void settle() {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
