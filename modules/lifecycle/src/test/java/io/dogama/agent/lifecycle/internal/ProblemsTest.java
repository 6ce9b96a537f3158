package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.registry.RegistryException;
import io.dogama.agent.registry.RegistryFullException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** What a caller is told for each kind of failure (issue 15: every 5xx explained, a 500 is a bug). */
class ProblemsTest {
    @Test
    void anEngineThatFailsOrIsGoneIsUnavailableNotInternal() {
        assertEquals(ProblemCode.DOCKER_UNAVAILABLE, Problems.code(new DockerUnavailableException("gone")));
        assertEquals(ProblemCode.DOCKER_UNAVAILABLE, Problems.code(new DockerApiException("start failed", 500)));
        assertEquals(ProblemCode.DOCKER_UNAVAILABLE, Problems.code(new DockerApiException("start failed", 503)));
        // a start refused for the engine's own state (the soak: its network store after a restart)
        assertEquals(ProblemCode.DOCKER_UNAVAILABLE, Problems.code(new DockerApiException("start", 400, true)));
        // an answer the agent should never provoke stays the agent's error
        assertEquals(ProblemCode.INTERNAL_ERROR, Problems.code(new DockerApiException("bad request", 400)));
        assertEquals(ProblemCode.INTERNAL_ERROR, Problems.code(new DockerApiException("bad request", 400, false)));
    }

    @Test
    void aFullDataDirectoryIsBusyAnyOtherRegistryFailureInternal() {
        assertEquals(ProblemCode.BUSY, Problems.code(new RegistryFullException("no space", new InternalError())));
        assertEquals(ProblemCode.INTERNAL_ERROR, Problems.code(new RegistryException("broken", new IOException())));
        assertEquals(ProblemCode.INTERVENTION_REQUIRED, Problems.code(new Abort(ProblemCode.INTERVENTION_REQUIRED)));
    }
}
