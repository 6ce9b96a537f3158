package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerNotFoundException;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.registry.InstanceRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who a container is: every check before a mutation inspects BY THE REGISTERED ID and compares
 * name and technical labels; the crash-window rule; removal that tolerates a container already
 * gone; and the instance as the API shows it.
 */
final class Identities {
    /** Status of an instance whose registered container does not exist. */
    static final String STATUS_MISSING = "missing";
    /** The engine's status of a container it created and nobody started (and so no start time, no exit code). */
    static final String STATUS_CREATED = "created";

    private static final System.Logger LOG = System.getLogger(Identities.class.getName());

    private final DockerEngine docker;

    Identities(DockerEngine docker) {
        this.docker = docker;
    }


    /**
     * Who a container must be: the instance, the plan it was made from, and the names it may carry.
     *
     * @param instanceId      instance ID
     * @param templateId      template ID of the plan
     * @param templateVersion template version of the plan
     * @param planDigest      digest of the plan
     * @param names           acceptable names
     */
    record Expect(String instanceId, String templateId, String templateVersion, String planDigest,
            Set<String> names) {
        static Expect current(InstanceRecord r) {
            return new Expect(r.instanceId(), r.templateId(), r.templateVersion(), r.planDigest(),
                    Set.of(r.containerName()));
        }

        static Expect prior(InstanceRecord r, InstanceRecord.Prior p) {
            return new Expect(r.instanceId(), p.templateId(), p.templateVersion(), p.planDigest(),
                    Set.of(new InstanceId(r.instanceId()).containerName(), p.containerName()));
        }

        boolean labelsMatch(Map<String, String> labels) {
            return "true".equals(labels.get(Labels.MANAGED)) && instanceId.equals(labels.get(Labels.INSTANCE_ID))
                    && templateId.equals(labels.get(Labels.TEMPLATE_ID))
                    && templateVersion.equals(labels.get(Labels.TEMPLATE_VERSION))
                    && planDigest.equals(labels.get(Labels.PLAN_DIGEST));
        }
    }

    /** The answer of an identity check. */
    sealed interface Identity permits Match, Missing, Mismatch {
    }

    /**
     * The container exists under the registered ID and is who it must be.
     *
     * @param info what the engine reported
     */
    record Match(ContainerInfo info) implements Identity {
    }

    /** No container under the registered ID (or none registered yet). */
    record Missing() implements Identity {
    }

    /** A container exists under the registered ID but its name or labels disagree: never touched. */
    record Mismatch() implements Identity {
    }

    /**
     * Inspects BY THE REGISTERED ID, never by name, and compares ID, name and every technical label.
     *
     * @param containerId the registered container ID, if any
     * @param expect      who it must be
     * @return the answer
     * @throws DockerException on an engine failure
     */
    Identity identify(Optional<String> containerId, Expect expect) throws DockerException {
        if (containerId.isEmpty()) {
            return new Missing();
        }
        Optional<ContainerInfo> info = docker.inspectContainer(containerId.get());
        if (info.isEmpty()) {
            return new Missing();
        }
        ContainerInfo c = info.get();
        boolean same = c.id().equals(containerId.get()) && expect.names().contains(c.name())
                && expect.labelsMatch(c.labels());
        return same ? new Match(c) : new Mismatch();
    }

    /**
     * The identity check before a mutation of the current container.
     *
     * @param r the record
     * @return the container
     * @throws Abort          {@code identity_mismatch} when it is missing or not ours
     * @throws DockerException on an engine failure
     */
    ContainerInfo requireCurrent(InstanceRecord r) throws Abort, DockerException {
        if (identify(r.containerId(), Expect.current(r)) instanceof Match m) {
            return m.info();
        }
        throw new Abort(ProblemCode.IDENTITY_MISMATCH);
    }

    /**
     * The containers of {@link #unrecordedSummaries} that were never started (engine status {@code created}), leaving
     * out {@code exclude}: what a create's crash window may leave, as an incomplete container. Every step that makes a
     * container records it before anything starts it, so one that ran is not from that window (an older registry copy
     * put back after the operation went on); it may hold a workload someone relies on, and is left for an operator.
     *
     * @param instanceId the instance
     * @param planDigest the digest of the plan whose create may have left one
     * @param exclude    container IDs known already
     * @return their IDs
     * @throws DockerException on an engine failure
     */
    List<String> unrecordedNeverStarted(String instanceId, String planDigest, Collection<String> exclude)
            throws DockerException {
        List<String> out = new ArrayList<>();
        for (ContainerSummary c : unrecordedSummaries(instanceId, planDigest)) {
            if (!exclude.contains(c.id()) && STATUS_CREATED.equals(c.state())) {
                out.add(c.id());
            }
        }
        return out;
    }

    /**
     * The containers a crash (or an engine call whose answer was lost) may have left between creating a container and
     * recording its ID: named {@code dogama-X}, labelled as instance X made from exactly this plan digest. Only ever
     * asked while the record says such a create was under way. With their engine state, from one list call, for a
     * caller that treats those that ran apart from those that never did ({@code Creates}' undo).
     *
     * @param instanceId the instance
     * @param planDigest the digest of the plan the container was being created from
     * @return their summaries
     * @throws DockerException on an engine failure
     */
    List<ContainerSummary> unrecordedSummaries(String instanceId, String planDigest) throws DockerException {
        String name = new InstanceId(instanceId).containerName();
        List<ContainerSummary> out = new ArrayList<>();
        for (ContainerSummary c : docker.listContainersByLabel(Labels.INSTANCE_ID, instanceId)) {
            Map<String, String> l = c.labels();
            if (c.names().contains(name) && "true".equals(l.get(Labels.MANAGED))
                    && instanceId.equals(l.get(Labels.INSTANCE_ID)) && planDigest.equals(l.get(Labels.PLAN_DIGEST))) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * Every container with the agent's managed label, whoever made it, for the start-up report of those no record
     * names ({@code Reconciler}); never acted on.
     *
     * @return their summaries
     * @throws DockerException on an engine failure
     */
    List<ContainerSummary> managed() throws DockerException {
        return docker.listContainersByLabel(Labels.MANAGED, "true");
    }

    /**
     * Removes a container; one already gone is fine.
     *
     * @param id container ID
     * @throws DockerException on any other failure
     */
    void removeIfPresent(String id) throws DockerException {
        try {
            docker.removeContainer(id);
        } catch (DockerNotFoundException gone) {
            LOG.log(System.Logger.Level.DEBUG, "lifecycle: container to remove was already gone");
        }
    }


    /**
     * The answer to a create, without asking the engine again: the container is the one the engine
     * answered 201 for a moment ago, under the instance's guard, and only a start (through this agent
     * or not) moves it on from {@code created}. A later inspect shows it as it is then.
     *
     * @param r the record the create committed
     * @return the instance as the API shows it
     */
    static InstanceView created(InstanceRecord r) {
        return new InstanceView(Records.summary(r),
                new InstanceView.ContainerView(STATUS_CREATED, Optional.empty(), Optional.empty()));
    }

    /**
     * @param r the record
     * @return the instance as the API shows it; the container as inspected by its registered ID
     * @throws Abort          {@code identity_mismatch} if a container under that ID is not ours
     * @throws DockerException on an engine failure
     */
    InstanceView view(InstanceRecord r) throws Abort, DockerException {
        return view(r, identify(r.containerId(), Expect.current(r)));
    }

    /**
     * @param r        the record
     * @param identity the answer of {@link #identify} for {@code r}'s current container, asked after what the
     *                 view must show had happened
     * @return the instance as the API shows it
     * @throws Abort {@code identity_mismatch} if a container under the registered ID is not ours
     */
    static InstanceView view(InstanceRecord r, Identity identity) throws Abort {
        return switch (identity) {
            case Match m -> new InstanceView(Records.summary(r),
                    new InstanceView.ContainerView(m.info().state().status(),
                    m.info().state().startedAt(), m.info().state().exitCode()));
            case Missing x -> new InstanceView(Records.summary(r),
                    new InstanceView.ContainerView(STATUS_MISSING, Optional.empty(), Optional.empty()));
            case Mismatch x -> throw new Abort(ProblemCode.IDENTITY_MISMATCH);
        };
    }
}
