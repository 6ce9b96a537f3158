package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.EngineVersion;
import io.dogama.agent.docker.ImageInfo;
import io.dogama.agent.docker.NetworkInfo;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.policy.Template;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The approval's image look-up, and a create's network look-up, run beside the port listing and the
 * validation, against the real engine: it is the catalog's image reference that is looked up (never one
 * the request states), and networks only when the configuration approves every one the plan names; each
 * is looked up once, and a request is answered only after its look-ups ended, used or not.
 */
class ApprovalsTest {
    /** Longest any step of these tests may wait for another. */
    private static final long WAIT_SECONDS = 20;

    private Harness h;
    private Watched engine;
    private Approvals approvals;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
        engine = new Watched(h.docker);
        approvals = new Approvals(engine, h.registry, h.policy);
    }

    @AfterEach
    void tearDown() throws Exception {
        engine.release.countDown();
        engine.networkRelease.countDown();
        h.close();
    }

    @Test
    void concurrentApprovalsAndPortChecksReadOneListingOfTheHostsContainersAtATime() throws Exception {
        engine.release.countDown();
        engine.networkRelease.countDown();
        engine.listingRelease = new CountDownLatch(1);
        List<Plan> plans = new ArrayList<>();
        for (String s : List.of("a", "b", "c")) {
            plans.add(parse(h.plan(h.newId(), h.source(s), Harness.port(), "hi")));
        }
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<?>> requests = new ArrayList<>();
            requests.add(pool.submit(() -> approvals.publishedHostPorts()));
            awaitTrue(() -> engine.listings.get() == 1, "the first listing never began");
            for (Plan p : plans) {
                requests.add(pool.submit(() -> approvals.approveCreate(p)));
                requests.add(pool.submit(() -> approvals.publishedHostPorts()));
            }
            // Six requests wait for the listing that begins once the running one ends: none runs its own.
            awaitTrue(() -> approvals.listingsWaiting() == 6, "the requests did not wait for one shared listing");
            assertEquals(1, engine.listings.get(), "a second listing ran beside the first");
            engine.listingRelease.countDown();
            for (Future<?> r : requests) {
                r.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            assertEquals(2, engine.listings.get(), "seven requests, two listings");
        } finally {
            pool.shutdownNow();
        }
    }

    /** Waits (bounded) until {@code condition} holds. */
    private static void awaitTrue(BooleanSupplier condition, String failure) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure);
            }
            LockSupport.parkNanos(1_000_000); // leave the two cores to the requests' threads
        }
    }

    @Test
    void aRegistrationWaitsForTheOneBeingWrittenAndIsThenCheckedAgainstIt() throws Exception {
        engine.release.countDown();
        engine.networkRelease.countDown();
        Path srcA = h.source("a");
        Path inside = Files.createDirectory(srcA.resolve("inside"));
        Plan planA = parse(h.plan(h.newId(), srcA, Harness.port(), "hi"));
        Plan planB = parse(h.plan(h.newId(), inside, Harness.port(), "hi"));
        // Both approved while neither is registered: each passed its validation without the other.
        Approvals.Approved a = approvals.approveCreate(planA);
        Approvals.Approved b = approvals.approveCreate(planB);
        CountDownLatch aWriting = new CountDownLatch(1);
        CountDownLatch aMayFinish = new CountDownLatch(1);
        List<String> written = new CopyOnWriteArrayList<>();
        Thread first = Thread.ofPlatform().start(() -> {
            try {
                approvals.register(a, () -> {
                    aWriting.countDown();
                    Harness.await(aMayFinish);
                    h.registry.insert(Records.record(a.plan(), InstanceState.CREATING, 0, Optional.empty(),
                            Optional.empty(), Optional.empty()));
                    written.add("a");
                });
            } catch (Abort | DockerException | RegistryException e) {
                throw new AssertionError(e);
            }
        });
        Harness.await(aWriting);
        CompletableFuture<Abort> second = new CompletableFuture<>();
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                approvals.register(b, () -> written.add("b"));
                second.complete(null);
            } catch (Abort e) {
                second.complete(e);
            } catch (DockerException | RegistryException e) {
                second.completeExceptionally(e);
            }
        });
        awaitTrue(() -> other.getState() == Thread.State.BLOCKED, "the second registration did not wait for the first");
        aMayFinish.countDown();
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        Abort refused = second.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(refused != null, "both overlapping plans were registered");
        assertEquals(List.of(new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE)),
                ((Outcome.Failed<?>) refused.outcome()).violations());
        assertEquals(List.of("a"), written);
    }

    @Test
    void theImageIsLookedUpBesideThePortListingAndOnlyOnce() throws Exception {
        engine.networkRelease.countDown();
        // The port listing waits until the image look-up has begun: one after the other, it never would.
        engine.portsAwaitImage = true;
        engine.release.countDown();
        Plan plan = parse(h.plan(h.newId(), h.source("a"), Harness.port(), "hi"));

        ApprovedPlan approved = approvals.approve(plan, List.of(), "").plan();

        assertEquals(List.of(Harness.DEMO_IMAGE), engine.imageLookups, "the template's image, looked up once");
        assertTrue(approved.spec().image().startsWith("sha256:"), "the spec runs the image ID that was checked");
    }

    @Test
    void anImageTheRequestStatesIsNeverLookedUp() throws Exception {
        engine.networkRelease.countDown();
        engine.release.countDown();
        String stated = "busybox:never-looked-up";
        Plan plan = parse(h.plan(h.newId(), h.source("b"), Harness.port(), "hi")
                .replace("\"image\":\"" + Harness.DEMO_IMAGE + "\"", "\"image\":\"" + stated + "\""));
        assertEquals(stated, plan.image());

        Abort refused = expectAbort(() -> approvals.approve(plan, List.of(), ""));

        assertEquals(ProblemCode.PLAN_REJECTED, refused.code());
        assertFalse(engine.imageLookups.contains(stated), "looked up: " + engine.imageLookups);
    }

    @Test
    void aRefusedPlanIsAnsweredOnlyAfterItsImageLookUpEnded() throws Exception {
        engine.networkRelease.countDown();
        // A plan the validation refuses (its greeting is not allowed) while the image look-up is held.
        Plan plan = parse(h.plan(h.newId(), h.source("c"), Harness.port(), "hi").replace("\"GREETING\"",
                "\"NOT_IN_THE_TEMPLATE\""));
        Thread approving = Thread.ofVirtual().start(() -> {
            try {
                approvals.approve(plan, List.of(), "");
                engine.events.add("answered");
            } catch (Abort e) {
                engine.events.add("answered");
            } catch (Exception e) {
                engine.events.add("failed: " + e);
            }
        });
        assertTrue(engine.imageStarted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the image look-up never began");
        // Without waiting for the look-up, the refusal would be answered while it is still held.
        Harness.awaitEndOrSettle(approving, "the approval neither ended nor waited for its image look-up");
        assertTrue(approving.isAlive(), "answered while its image look-up was still running: " + engine.events);
        engine.release.countDown();
        approving.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(approving.isAlive(), "the approval did not end once its look-up did");
        assertEquals(List.of("image looked up", "answered"), engine.events);
    }

    @Test
    void aCreatesNetworksAreLookedUpBesideThePortListingAndOnlyOnce() throws Exception {
        // The port listing waits until the network look-up has begun: one after the other, it never would.
        engine.portsAwaitNetwork = true;
        engine.release.countDown();
        engine.networkRelease.countDown();
        Plan plan = parse(h.plan(h.newId(), h.source("d"), Harness.port(), "hi"));

        Approvals.Approved approved = approvals.approveCreate(plan);

        assertEquals(List.of(h.network), engine.networkLookups, "the plan's network, looked up once");
        List<NetworkInfo> found = approved.networks().resolve(engine, approved.plan().spec().networks());
        assertEquals(List.of(h.network), engine.networkLookups, "the create looked its networks up again");
        assertEquals(h.docker.inspectNetwork(h.network).orElseThrow(), found.getFirst());
    }

    @Test
    void anApprovalReadsTheRegisteredPlansOnceForTheirPortsAndTheirBindSources() throws Exception {
        // Every registered record is read and its MAC checked, and every plan parsed, per walk: at the largest
        // registry (10,000 instances) a walk takes about 70 ms, so a create makes one, not one per kind of claim.
        engine.release.countDown();
        engine.networkRelease.countDown();
        int port = Harness.port();
        Path taken = h.source("claimed");
        Plan registered = parse(h.plan(h.newId(), taken, port, "hi"));
        Approvals.Approved first = approvals.approveCreate(registered);
        approvals.register(first, () -> h.registry.insert(Records.record(first.plan(), InstanceState.CREATING, 0,
                Optional.empty(), Optional.empty(), Optional.empty())));
        Counting counting = new Counting(h.registry);
        Approvals counted = new Approvals(engine, counting, h.policy);

        // The one walk still carries both claims of the registered plan: its host port and its bind source.
        Abort samePort = expectAbort(() -> counted.approveCreate(parse(h.plan(h.newId(), h.source("f"), port, "hi"))));
        assertEquals(1, counting.walks.get(), "registry walks for one approval");
        assertEquals(ProblemCode.PORT_CONFLICT, samePort.code(), "the registered host port");
        Path inside = Files.createDirectory(taken.resolve("inner"));
        Abort sameSource = expectAbort(() -> counted.approveCreate(parse(h.plan(h.newId(), inside, Harness.port(), "hi"))));
        assertEquals(2, counting.walks.get(), "registry walks for two approvals");
        assertTrue(rules(sameSource).contains(Rules.SOURCE_OVERLAPS_INSTANCE),
                "the registered bind source: " + rules(sameSource));
    }

    /**
     * A record that fails its MAC is never acted on, but its container may still run with its bind mount and hold
     * its host port: it claims what its containers hold, as the engine shows them. Before, it claimed nothing, so
     * another plan could take the very folder and port of an instance the agent had stopped managing. The same for
     * an authentic record whose plan no longer parses (a parser limit lowered in an upgrade). A record whose
     * instance has no container claims nothing: nothing is mounted or published for it.
     */
    @Test
    void anUnreadableRecordClaimsWhatItsContainersHold() throws Exception {
        engine.release.countDown();
        engine.networkRelease.countDown();
        int port = Harness.port();
        Path taken = h.source("claimed-by-a");
        String a = h.newId();
        ok(h.ops.create(bytes(h.plan(a, taken, port, "hi")))); // a real container, created (not started)
        Path free = h.source("claimed-by-nobody");
        String noContainer = h.newId();
        Approvals.Approved c = approvals.approveCreate(parse(h.plan(noContainer, free, Harness.port(), "hi")));
        approvals.register(c, () -> h.registry.insert(Records.record(c.plan(), InstanceState.CREATING, 0,
                Optional.empty(), Optional.empty(), Optional.empty())));
        Path inside = Files.createDirectory(taken.resolve("inner"));

        for (Unreadable kind : Unreadable.values()) {
            Approvals after = new Approvals(h.docker, new Damaged(h.registry, Set.of(a, noContainer), kind), h.policy);
            Abort sameSource = expectAbort(() -> after.approveCreate(parse(h.plan(h.newId(), inside, Harness.port(),
                    "hi"))));
            assertTrue(rules(sameSource).contains(Rules.SOURCE_OVERLAPS_INSTANCE), kind + ": " + rules(sameSource));
            Abort samePort = expectAbort(() -> after.approveCreate(parse(h.plan(h.newId(), h.source("b-" + kind),
                    port, "hi"))));
            assertEquals(ProblemCode.PORT_CONFLICT, samePort.code(), kind + ": the port of a created container");
            Approvals.Claims claims = after.registered();
            assertEquals(List.of(taken.toString()), claims.sources().get(a),
                    kind + ": the source its container mounts");
            assertTrue(claims.sources().getOrDefault(noContainer, List.of()).isEmpty(),
                    kind + ": no container, no claim");
            after.approveCreate(parse(h.plan(h.newId(), free, Harness.port(), "hi"))); // no container: no claim
        }
    }

    /** How a record cannot be read. */
    private enum Unreadable { TAMPERED, PLAN_DOES_NOT_PARSE }

    /** The real registry, except that the records of some instances cannot be read. */
    private static final class Damaged extends ForwardingRegistry {
        private final Set<String> damaged;
        private final Unreadable kind;

        Damaged(Registry real, Set<String> damaged, Unreadable kind) {
            super(real);
            this.damaged = damaged;
            this.kind = kind;
        }

        private Lookup damage(Lookup l) {
            if (!(l instanceof Lookup.Found f) || !damaged.contains(l.instanceId())) {
                return l;
            }
            InstanceRecord r = f.record();
            return switch (kind) {
                case TAMPERED -> new Lookup.Tampered(l.instanceId());
                case PLAN_DOES_NOT_PARSE -> new Lookup.Found(new InstanceRecord(r.instanceId(), r.containerId(),
                        r.containerName(), r.templateId(), r.templateVersion(), r.planDigest(), "{\"not\":\"a plan\"}",
                        r.state(), r.revision(), r.prior(), r.step()), f.generation());
            };
        }

        @Override
        public Lookup get(String instanceId) throws RegistryException {
            return damage(real.get(instanceId));
        }

        @Override
        public List<Lookup> all() throws RegistryException {
            return real.all().stream().map(this::damage).toList();
        }
    }

    private static List<String> rules(Abort a) {
        return ((Outcome.Failed<?>) a.outcome()).violations().stream().map(Violation::rule).toList();
    }

    /** The registry, counting its walks ({@link Registry#all}). */
    private static final class Counting extends ForwardingRegistry {
        final AtomicInteger walks = new AtomicInteger();

        Counting(Registry real) {
            super(real);
        }

        @Override
        public List<Lookup> all() throws RegistryException {
            walks.incrementAndGet();
            return real.all();
        }
    }

    @Test
    void aNetworkTheConfigurationDoesNotApproveIsNeverLookedUp() throws Exception {
        engine.release.countDown();
        engine.networkRelease.countDown();
        String stated = "dogama-never-looked-up";
        Plan plan = parse(h.plan(h.newId(), h.source("e"), Harness.port(), "hi")
                .replace("\"networks\":[\"" + h.network + "\"]", "\"networks\":[\"" + h.network + "\",\"" + stated + "\"]"));
        assertEquals(List.of(h.network, stated), plan.networks());

        Abort refused = expectAbort(() -> approvals.approveCreate(plan));

        assertEquals(ProblemCode.PLAN_REJECTED, refused.code());
        assertEquals(List.of(), engine.networkLookups, "looked up before the validation");
    }

    @Test
    void aRefusedPlanIsAnsweredOnlyAfterItsNetworkLookUpEnded() throws Exception {
        engine.release.countDown();
        Plan plan = parse(h.plan(h.newId(), h.source("f"), Harness.port(), "hi").replace("\"GREETING\"",
                "\"NOT_IN_THE_TEMPLATE\""));
        Thread approving = Thread.ofVirtual().start(() -> {
            try {
                approvals.approveCreate(plan);
                engine.events.add("answered");
            } catch (Abort e) {
                engine.events.add("answered");
            } catch (Exception e) {
                engine.events.add("failed: " + e);
            }
        });
        assertTrue(engine.networkStarted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the network look-up never began");
        // Without waiting for the look-up, the refusal would be answered while it is still held.
        Harness.awaitEndOrSettle(approving, "the approval neither ended nor waited for its network look-up");
        assertTrue(approving.isAlive(), "answered while its network look-up was still running: " + engine.events);
        engine.networkRelease.countDown();
        approving.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(approving.isAlive(), "the approval did not end once its look-up did");
        // The image's look-up was never held: it may have ended before the network's or after.
        assertEquals(Set.of("image looked up", "network looked up"), Set.copyOf(engine.events.subList(0, 2)));
        assertEquals(List.of("answered"), engine.events.subList(2, engine.events.size()));
    }

    @Test
    void aPullLooksTheNetworksUpAgainRightBeforeTheCreate() throws Exception {
        // A template pinned by manifest digest whose image is not local: the approval pulls it, which may
        // take minutes, so the network look-up made beside the approval is not the one the create uses.
        String digest = "sha256:" + "ab".repeat(32);
        PlanPolicy pinned = pinnedByDigest(digest);
        Plan plan = parse(h.plan(h.newId(), h.source("g"), Harness.port(), "hi"));
        assertEquals(Optional.of(digest), pinned.template(plan).orElseThrow().manifestDigest());
        engine.pullAs = Approvals.repository(Harness.DEMO_IMAGE) + "@" + digest;
        engine.release.countDown();
        engine.networkRelease.countDown();

        Approvals.Approved approved = new Approvals(engine, h.registry, pinned).approveCreate(plan);
        assertTrue(engine.events.contains("pulled " + engine.pullAs), "no pull: " + engine.events);
        assertEquals(List.of(h.network), engine.networkLookups);
        approved.networks().resolve(engine, approved.plan().spec().networks());

        assertEquals(List.of(h.network, h.network), engine.networkLookups, "the create used the look-up made before the pull");
    }

    /**
     * A full registry refuses a create before its image is resolved: the intent's insert would refuse it after a pull
     * (minutes, and again at every retry of the {@code busy}).
     */
    @Test
    void aFullRegistryRefusesACreateBeforeItsImageIsPulled() throws Exception {
        String digest = "sha256:" + "cd".repeat(32);
        PlanPolicy pinned = pinnedByDigest(digest);
        Plan plan = parse(h.plan(h.newId(), h.source("g"), Harness.port(), "hi"));
        engine.pullAs = Approvals.repository(Harness.DEMO_IMAGE) + "@" + digest;
        engine.release.countDown();
        engine.networkRelease.countDown();
        int registered = h.registry.all().size();
        Registry full = new ForwardingRegistry(h.registry) {
            @Override
            public int maxInstances() {
                return registered;
            }
        };
        assertEquals(ProblemCode.BUSY, expectAbort(() -> new Approvals(engine, full, pinned).approveCreate(plan)).code());
        assertTrue(engine.events.stream().noneMatch(e -> e.startsWith("pulled")), "pulled: " + engine.events);
        // With room, the same create pulls.
        new Approvals(engine, h.registry, pinned).approveCreate(plan);
        assertTrue(engine.events.contains("pulled " + engine.pullAs), "no pull: " + engine.events);
    }

    /** The policy of a catalog whose demo template is pinned by {@code digest} too, its image not local by it. */
    private PlanPolicy pinnedByDigest(String digest) throws Exception {
        String localId = h.docker.inspectImage(Harness.DEMO_IMAGE).orElseThrow().id();
        String json;
        try (var in = Catalog.class.getResourceAsStream(
                Catalog.RESOURCE_DIR + Harness.TEMPLATE + "/" + Harness.VERSION + ".json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Template embedded = Catalog.embedded().find(Harness.TEMPLATE, Harness.VERSION).orElseThrow();
        json = json.replace(embedded.imageId().orElseThrow(), localId)
                .replaceFirst("\"imageId\":", "\"manifestDigest\": \"" + digest + "\", \"imageId\":");
        Path pinned = h.base.resolve("pinned-" + digest.substring(7, 11));
        Path dir = Files.createDirectories(pinned.resolve(Harness.TEMPLATE));
        Files.writeString(dir.resolve(Harness.VERSION + ".json"), json);
        Files.writeString(pinned.resolve(Catalog.LOCK_FILE), Harness.sha256(json.getBytes(StandardCharsets.UTF_8))
                + "  " + Harness.TEMPLATE + "/" + Harness.VERSION + ".json\n");
        return PlanPolicy.create(h.policy.config(), Catalog.load(pinned));
    }

    @FunctionalInterface
    private interface Approval {
        void run() throws Exception;
    }

    private static Abort expectAbort(Approval a) throws Exception {
        try {
            a.run();
        } catch (Abort e) {
            return e;
        }
        return fail("the plan was approved");
    }

    private static Plan parse(String json) {
        return switch (PlanParser.parse(bytes(json))) {
            case Outcome.Ok<Plan> ok -> ok.value();
            case Outcome.Failed<Plan> f -> fail("the test's plan does not parse: " + f);
        };
    }

    /** The real engine, with the image look-up and the port listing watched (and the former held until released). */
    private static final class Watched extends ForwardingEngine {
        final List<String> imageLookups = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch imageStarted = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> networkLookups = new CopyOnWriteArrayList<>();
        final CountDownLatch networkStarted = new CountDownLatch(1);
        final CountDownLatch networkRelease = new CountDownLatch(1);
        /** When set, each port listing waits for it; {@link #listings} counts the listings begun. */
        volatile CountDownLatch listingRelease;
        final AtomicInteger listings = new AtomicInteger();
        volatile boolean portsAwaitImage;
        volatile boolean portsAwaitNetwork;
        /** When set, the demo image is not local and a pull of this reference is what brings it. */
        volatile String pullAs;

        Watched(DockerEngine real) {
            super(real);
        }

        @Override
        public Optional<ImageInfo> inspectImage(String ref) throws DockerException {
            imageLookups.add(ref);
            imageStarted.countDown();
            try {
                if (!release.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the image look-up was never released");
                }
                if (pullAs != null) {
                    // The demo image, as if only a pull by pullAs brought it: absent until then, and
                    // then known by that repo digest.
                    if (!ref.equals(pullAs) || !events.contains("pulled " + pullAs)) {
                        return Optional.empty();
                    }
                    ImageInfo demo = real.inspectImage(Harness.DEMO_IMAGE).orElseThrow();
                    return Optional.of(new ImageInfo(demo.id(), List.of(pullAs), demo.user(), demo.volumes()));
                }
                return real.inspectImage(ref);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            } finally {
                events.add("image looked up");
            }
        }

        @Override
        public Set<HostPort> publishedHostPorts() throws DockerException {
            listings.incrementAndGet();
            try {
                CountDownLatch gate = listingRelease;
                if (gate != null && !gate.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the port listing was never released");
                }
                if (portsAwaitImage && !imageStarted.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the port listing ran and the image look-up had not begun");
                }
                if (portsAwaitNetwork && !networkStarted.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the port listing ran and the network look-up had not begun");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            return real.publishedHostPorts();
        }

        @Override
        public void pullImage(String ref) throws DockerException {
            if (pullAs == null) {
                real.pullImage(ref);
            }
            events.add("pulled " + ref);
        }

        @Override
        public Optional<NetworkInfo> inspectNetwork(String name) throws DockerException {
            networkLookups.add(name);
            networkStarted.countDown();
            try {
                if (!networkRelease.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the network look-up was never released");
                }
                return real.inspectNetwork(name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            } finally {
                events.add("network looked up");
            }
        }

    }
}
