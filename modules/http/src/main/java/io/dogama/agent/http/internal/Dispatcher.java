package io.dogama.agent.http.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Created;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/** Calls the operation a route names and turns its {@link Outcome} into a reply. */
final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final Supplier<AgentOperations> operations;

    /** @param operations the operations, present from the moment the listener accepts connections */
    Dispatcher(Supplier<AgentOperations> operations) {
        this.operations = operations;
    }

    /**
     * @param endpoint the matched operation
     * @param id       the instance ID from the path, or null
     * @param body     the request body, already checked against the route's body rule and media type
     * @return the reply
     */
    Reply dispatch(RouteTable.Endpoint endpoint, String id, byte[] body) {
        AgentOperations ops = operations.get();
        return switch (endpoint) {
            case HEALTH -> reply(ops.health(), 200, h -> Map.of("status", "ok"));
            case CHECK_DISK -> switch (Bodies.diskPaths(body)) {
                case Outcome.Ok<List<String>> ok -> reply(ops.checkDisk(ok.value()), 200, Json::disk);
                case Outcome.Failed<List<String>> failed -> failure(failed);
            };
            case CHECK_PORTS -> switch (Bodies.portBindings(body)) {
                case Outcome.Ok<List<io.dogama.agent.core.HostPort>> ok ->
                        reply(ops.checkPorts(ok.value()), 200, Json::ports);
                case Outcome.Failed<List<io.dogama.agent.core.HostPort>> failed -> failure(failed);
            };
            case LIST -> reply(ops.list(), 200, Json::instances);
            case CREATE -> created(ops.create(body));
            case REPLACE -> reply(ops.replace(id, body), 200, Json::instance);
            case INSPECT -> reply(ops.inspect(id), 200, Json::instance);
            case DELETE -> switch (ops.delete(id)) {
                case Outcome.Ok<AgentOperations.Deleted> ok -> Reply.noContent();
                case Outcome.Failed<AgentOperations.Deleted> failed -> failure(failed);
            };
            case STATS -> reply(ops.stats(id), 200, Json::stats);
            case START -> reply(ops.start(id), 200, Json::instance);
            case STOP -> switch (Bodies.timeout(body)) {
                case Outcome.Ok<Integer> ok -> reply(ops.stop(id, ok.value()), 200, Json::instance);
                case Outcome.Failed<Integer> failed -> failure(failed);
            };
            case RESTART -> switch (Bodies.timeout(body)) {
                case Outcome.Ok<Integer> ok -> reply(ops.restart(id, ok.value()), 200, Json::instance);
                case Outcome.Failed<Integer> failed -> failure(failed);
            };
        };
    }

    private static Reply created(Outcome<Created> outcome) {
        return switch (outcome) {
            case Outcome.Ok<Created> ok -> Reply.json(ok.value().existed() ? 200 : 201, Json.instance(ok.value().instance()));
            case Outcome.Failed<Created> failed -> failure(failed);
        };
    }

    private static <T> Reply reply(Outcome<T> outcome, int status, Function<T, Map<String, Object>> view) {
        return switch (outcome) {
            case Outcome.Ok<T> ok -> {
                Map<String, Object> json = view.apply(ok.value());
                if (json == null) {
                    LOG.log(System.Logger.Level.ERROR, "http: an operation returned a value that is not valid JSON");
                    yield Reply.problem(ProblemCode.INTERNAL_ERROR);
                }
                yield Reply.json(status, json);
            }
            case Outcome.Failed<T> failed -> failure(failed);
        };
    }

    private static Reply failure(Outcome.Failed<?> failed) {
        return Reply.problem(failed.code(), failed.violations());
    }
}
