/**
 * The Java client of the DoGaMa agent's HTTP API (SPEC sections 2 to 4). Usable on the module path and
 * on a plain class path alike: no service loading, no reflection on its own types.
 */
module io.dogama.agent.client {
    // The transport: HttpClient (HTTP/1.1, no redirects, bounded timeouts). Not transitive: no
    // java.net.http type appears in the API.
    requires java.net.http;
    // Reads and writes the bodies as maps and lists; records are mapped by hand in internal.Codec.
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.client;
}
