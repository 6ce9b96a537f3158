package io.dogama.agent.lifecycle.internal;

/** Entry point for the runtime image's self-check: the state machine library answers as the table says. */
public final class StateMachineCheck {
    private StateMachineCheck() {
    }

    /**
     * @return the number of table rows squirrel answered correctly
     * @throws IllegalStateException naming the first row squirrel answered differently
     */
    public static int run() {
        for (Transitions.Row row : Transitions.TABLE) {
            if (!Transitions.next(row.from(), row.on()).equals(java.util.Optional.of(row.to()))) {
                throw new IllegalStateException("lifecycle: state machine disagrees with its table at " + row);
            }
        }
        if (Transitions.next(Phase.ABSENT, Event.DELETE).isPresent()) {
            throw new IllegalStateException("lifecycle: state machine accepts an event outside its table");
        }
        return Transitions.TABLE.size();
    }
}
