/** Request authentication (SPEC section 3). */
module io.dogama.agent.auth {
    requires transitive io.dogama.agent.core;

    exports io.dogama.agent.auth;
}
