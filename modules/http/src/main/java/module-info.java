/** The HTTP surface on Helidon 4 SE (SPEC sections 2 to 4). */
module io.dogama.agent.http {
    requires io.dogama.agent.core;
    requires transitive io.dogama.agent.auth;
    requires transitive io.dogama.agent.lifecycle;
    // Accounting's factory takes the audit log and the metrics registry
    requires transitive io.dogama.agent.audit;
    requires transitive io.dogama.agent.metrics;
    requires io.helidon.webserver;
    // Helidon's request and URI types used by the gate; io.helidon.webserver does not re-export them.
    requires io.helidon.http;
    requires io.helidon.common.uri;
    // The byte reader and socket types of the strict HTTP/1 connection (StrictHttp1Selector says why).
    requires io.helidon.common.buffers;
    requires io.helidon.common.socket;
    // Only to give Helidon an explicit, empty service registry (Listener says why).
    requires io.helidon.service.registry;
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.http;
}
