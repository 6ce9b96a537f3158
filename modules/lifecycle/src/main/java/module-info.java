/** The lifecycle state machine and operations (SPEC section 10). */
module io.dogama.agent.lifecycle {
    requires transitive io.dogama.agent.core;
    requires io.dogama.agent.policy;
    requires io.dogama.agent.registry;
    requires io.dogama.agent.docker;
    requires squirrel.foundation;
    // squirrel is an automatic module: it reads slf4j but does not pull it into the graph.
    requires org.slf4j;

    exports io.dogama.agent.lifecycle;
    // squirrel instantiates the state machine class reflectively.
    opens io.dogama.agent.lifecycle.internal to squirrel.foundation;
}
