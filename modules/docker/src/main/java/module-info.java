/** The Docker engine client over the Unix socket (SPEC sections 1, 8, 10). */
module io.dogama.agent.docker {
    requires transitive io.dogama.agent.core;
    requires org.newsclub.net.unix;
    // Without it the native library is not found at run time (UnsatisfiedLinkError).
    requires com.kohlschutter.junixsocket.nativecommon;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.docker;
}
