package io.dogama.agent.http.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Created;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/** Calls the operation a route names and turns its {@link Outcome} into a reply and the facts the audit log records. */
final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());
    /** The answer of a healthy check, the same every time: serialised once, not once per check. */
    private static final Reply HEALTHY = Reply.json(200, Map.of("status", "ok"));

    private final Supplier<AgentOperations> operations;
    private final Metrics metrics;
    /** The last listing and its answer: an equal listing gets the same bytes instead of being serialised again. */
    private volatile Listing lastListing = new Listing(List.of(), Reply.json(200, Json.instances(List.of())));

    private record Listing(List<InstanceSummary> instances, Reply reply) {
    }

    /**
     * @param operations the operations, present from the moment the listener accepts connections
     * @param metrics    the registry {@code GET /v1/metrics} serves
     */
    Dispatcher(Supplier<AgentOperations> operations, Metrics metrics) {
        this.operations = operations;
        this.metrics = metrics;
    }

    /**
     * A reply and what it means.
     *
     * @param reply  the reply
     * @param result the facts for the audit line
     */
    record Dispatched(Reply reply, Accountant.Result result) {
    }

    /**
     * @param endpoint the matched operation
     * @param id       the instance ID from the path, or null
     * @param body     the request body, already checked against the route's body rule and media type
     * @param arrived  {@link System#nanoTime()} when the request reached the agent
     * @return the reply and its facts
     */
    Dispatched dispatch(RouteTable.Endpoint endpoint, String id, byte[] body, long arrived) {
        AgentOperations ops = operations.get();
        return switch (endpoint) {
            case HEALTH -> switch (ops.health(arrived)) {
                case Outcome.Ok<AgentOperations.Health> ok ->
                        new Dispatched(HEALTHY, Accountant.Result.failed(null, List.of()));
                case Outcome.Failed<AgentOperations.Health> failed -> failure(failed);
            };
            case CHECK_DISK -> switch (Bodies.diskPaths(body)) {
                case Outcome.Ok<List<String>> ok -> reply(ops.checkDisk(ok.value()), 200, Json::disk);
                case Outcome.Failed<List<String>> failed -> failure(failed);
            };
            case CHECK_PORTS -> switch (Bodies.portBindings(body)) {
                case Outcome.Ok<List<io.dogama.agent.core.HostPort>> ok ->
                        reply(ops.checkPorts(ok.value()), 200, Json::ports);
                case Outcome.Failed<List<io.dogama.agent.core.HostPort>> failed -> failure(failed);
            };
            case LIST -> switch (ops.list()) {
                case Outcome.Ok<List<InstanceSummary>> ok ->
                        new Dispatched(listing(ok.value()), Accountant.Result.failed(null, List.of()));
                case Outcome.Failed<List<InstanceSummary>> failed -> failure(failed);
            };
            case CREATE -> {
                // A refused create is recorded against the instance its plan names (SPEC 14), once it parsed.
                AtomicReference<String> target = new AtomicReference<>();
                yield created(ops.create(body, target::set), target.get());
            }
            // A replace that succeeded went from revision n to n+1 (SPEC section 2).
            case REPLACE -> instance(ops.replace(id, body), 1);
            case INSPECT -> reply(ops.inspect(id), 200, Json::instance);
            case DELETE -> switch (ops.delete(id)) {
                case Outcome.Ok<AgentOperations.Deleted> ok ->
                        new Dispatched(Reply.noContent(), new Accountant.Result(null, id, -1, -1, null, List.of()));
                case Outcome.Failed<AgentOperations.Deleted> failed -> failure(failed);
            };
            case STATS -> reply(ops.stats(id), 200, Json::stats);
            case START -> instance(ops.start(id), 0);
            case STOP -> switch (Bodies.timeout(body)) {
                case Outcome.Ok<Integer> ok -> instance(ops.stop(id, ok.value()), 0);
                case Outcome.Failed<Integer> failed -> failure(failed);
            };
            case RESTART -> switch (Bodies.timeout(body)) {
                case Outcome.Ok<Integer> ok -> instance(ops.restart(id, ok.value()), 0);
                case Outcome.Failed<Integer> failed -> failure(failed);
            };
            case METRICS -> new Dispatched(Reply.text(Metrics.CONTENT_TYPE,
                    metrics.scrape().getBytes(StandardCharsets.UTF_8)), Accountant.Result.failed(null, List.of()));
        };
    }

    /**
     * The answer to a listing. Summaries are values, so an equal list has the very same JSON; with
     * nothing changing between listings this skips the serialisation, a sixth of a listing's work.
     */
    private Reply listing(List<InstanceSummary> instances) {
        Listing last = lastListing;
        if (last.instances().equals(instances)) {
            return last.reply();
        }
        Listing now = new Listing(List.copyOf(instances), Reply.json(200, Json.instances(instances)));
        lastListing = now;
        return now.reply();
    }

    /** @param target the instance the plan names, or null when it did not parse */
    private static Dispatched created(Outcome<Created> outcome, String target) {
        return switch (outcome) {
            case Outcome.Ok<Created> ok -> {
                InstanceView v = ok.value().instance();
                long after = v.summary().revision();
                yield new Dispatched(Reply.json(ok.value().existed() ? 200 : 201, Json.instance(v)),
                        new Accountant.Result(null, v.summary().instanceId(), ok.value().existed() ? after : -1, after,
                                v.summary().planDigest(), List.of()));
            }
            case Outcome.Failed<Created> failed -> {
                Dispatched d = failure(failed);
                Accountant.Result r = d.result();
                yield new Dispatched(d.reply(), new Accountant.Result(r.code(), target, -1, -1, null, r.rules()));
            }
        };
    }

    /** @param revisionStep how far the operation moved the revision when it succeeded */
    private static Dispatched instance(Outcome<InstanceView> outcome, long revisionStep) {
        Dispatched d = reply(outcome, 200, Json::instance);
        if (outcome instanceof Outcome.Ok<InstanceView> ok && d.result().code() == null) {
            InstanceView v = ok.value();
            long after = v.summary().revision();
            return new Dispatched(d.reply(), new Accountant.Result(null, v.summary().instanceId(), after - revisionStep,
                    after, v.summary().planDigest(), List.of()));
        }
        return d;
    }

    private static <T> Dispatched reply(Outcome<T> outcome, int status, Function<T, Map<String, Object>> view) {
        return switch (outcome) {
            case Outcome.Ok<T> ok -> {
                Map<String, Object> json = view.apply(ok.value());
                if (json == null) {
                    LOG.log(System.Logger.Level.ERROR, "http: an operation returned a value that is not valid JSON");
                    yield problem(ProblemCode.INTERNAL_ERROR, List.of());
                }
                yield new Dispatched(Reply.json(status, json), Accountant.Result.failed(null, List.of()));
            }
            case Outcome.Failed<T> failed -> failure(failed);
        };
    }

    private static Dispatched failure(Outcome.Failed<?> failed) {
        return problem(failed.code(), failed.violations());
    }

    private static Dispatched problem(ProblemCode code, List<Violation> violations) {
        // Rule names only: a violation's field may name a caller's label or env key.
        List<String> rules = violations.stream().map(Violation::rule).distinct().toList();
        return new Dispatched(Reply.problem(code, violations), Accountant.Result.failed(code, rules));
    }
}
