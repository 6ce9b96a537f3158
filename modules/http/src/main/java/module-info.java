/** The HTTP surface on Helidon 4 SE (SPEC sections 2 to 4). */
module io.dogama.agent.http {
    requires io.dogama.agent.core;
    requires io.dogama.agent.auth;
    requires io.dogama.agent.lifecycle;
    requires io.helidon.webserver;
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.http;
}
