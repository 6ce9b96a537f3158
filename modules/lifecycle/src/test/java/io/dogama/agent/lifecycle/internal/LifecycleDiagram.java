package io.dogama.agent.lifecycle.internal;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Generates {@code docs/lifecycle.dot}: the states of {@link Transitions} with the steps of
 * {@link Step} inside the state the record holds while they act, read from the two squirrel
 * machines as they are built ({@link Transitions#next}, {@link StepMachine#graph}). Requests between
 * settled states are the table's edges; a request that starts an operation leads to its first step;
 * every step edge is labelled with its outcome; an operation that ends fires its table event into a
 * settled state; a run that keeps the record (or a crash in any step of a state) leads to that
 * state's start-up recovery, which re-enters where {@link Step#recover} says.
 */
final class LifecycleDiagram {
    /** The states a record is in while an operation is under way. */
    private static final Set<Phase> UNDER_WAY = EnumSet.of(Phase.CREATING, Phase.REPLACING, Phase.ROLLING_BACK,
            Phase.DELETING);

    private LifecycleDiagram() {
    }

    /** The state a step is drawn in: the last state it may act in, if an operation is under way there. */
    private static Optional<Phase> home(Step s) {
        List<Phase> before = new ArrayList<>(s.before());
        Phase last = before.getLast();
        return UNDER_WAY.contains(last) ? Optional.of(last) : Optional.empty();
    }

    private static String first(Event request) {
        return switch (request) {
            case CREATE -> Step.CREATE_PERSIST_INTENT.name();
            case REPLACE -> Step.REPLACE_PERSIST_INTENT.name();
            case DELETE -> Step.DELETE_PERSIST_INTENT.name();
            default -> throw new IllegalArgumentException(request.name());
        };
    }

    static String dot() {
        Set<String> edges = new LinkedHashSet<>();
        StringBuilder out = new StringBuilder();
        out.append("digraph lifecycle {\n");
        out.append("  rankdir=LR;\n  compound=true;\n");
        out.append("  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n");
        for (Phase p : Phase.values()) {
            if (!UNDER_WAY.contains(p)) {
                out.append("  ").append(p).append(" [shape=").append(p == Phase.ABSENT ? "doublecircle" : "box")
                        .append(", style=\"rounded,bold\"];\n");
            }
        }
        for (Step s : Step.values()) {
            if (home(s).isEmpty()) {
                out.append("  ").append(s).append(" [shape=box, label=\"").append(s.marker()).append("\\n")
                        .append(s.effect()).append("\"];\n");
            }
        }
        for (Phase p : UNDER_WAY) {
            out.append("  subgraph cluster_").append(p).append(" {\n    label=\"").append(p)
                    .append("\";\n    style=\"rounded,filled\";\n    fillcolor=\"#f3f3f3\";\n");
            for (Step s : Step.values()) {
                if (home(s).equals(Optional.of(p))) {
                    out.append("    ").append(s).append(" [shape=box, label=\"").append(s.marker()).append("\\n")
                            .append(s.effect()).append(s.guard() == Step.Guard.ALWAYS ? "" : " if " + s.guard())
                            .append("\"];\n");
                }
            }
            out.append("    recover_").append(p).append(" [shape=diamond, label=\"start-up\\nrecovery\"];\n");
            out.append("  }\n");
        }
        // the table: requests between settled states, and requests that start an operation
        for (Transitions.Row r : Transitions.TABLE) {
            boolean request = r.on().ordinal() <= Event.DELETE.ordinal();
            if (!request || UNDER_WAY.contains(r.from())) {
                continue;
            }
            String to = UNDER_WAY.contains(r.to()) ? first(r.on()) : r.to().name();
            edges.add(r.from() + " -> " + to + " [label=\"" + r.on() + "\", style=bold]");
        }
        // the steps, as squirrel runs them
        for (Map.Entry<Step.Go, Map<Step.Outcome, Step.Decision>> e : StepMachine.graph().entrySet()) {
            Step s = e.getKey().step();
            Phase in = home(s).orElse(s.before().iterator().next());
            for (Map.Entry<Step.Outcome, Step.Decision> t : e.getValue().entrySet()) {
                String label = t.getKey().name().toLowerCase(java.util.Locale.ROOT);
                switch (t.getValue()) {
                    case Step.Go go -> edges.add(s + " -> " + go.step() + " [label=\"" + label
                            + (go.search() ? " (search)" : "") + "\"]");
                    case Step.End end -> {
                        for (Event ev : new LinkedHashSet<>(List.of(end.ifStopped(), end.ifRunning()))) {
                            Phase from = s == Step.ROLLBACK_GIVE_UP ? Phase.ROLLING_BACK : in;
                            Phase to = Transitions.next(from, ev).orElseThrow();
                            edges.add(s + " -> " + to + " [label=\"" + label + ": " + ev + "\"]");
                        }
                    }
                    case Step.Keep keep -> {
                        if (home(s).isPresent()) {
                            edges.add(s + " -> recover_" + in + " [label=\"" + label + ": kept\", style=dashed]");
                        }
                    }
                }
            }
        }
        for (Phase p : UNDER_WAY) {
            if (Step.recover(p, Optional.empty()) instanceof Step.Go go) {
                edges.add("recover_" + p + " -> " + go.step() + " [label=\"restart\", style=dashed]");
            }
        }
        for (String edge : edges) {
            out.append("  ").append(edge).append(";\n");
        }
        out.append("}\n");
        return out.toString();
    }
}
