package io.dogama.agent.http.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which connection makes room when the last slot is taken, on real loopback sockets. */
class ConnectionWatchdogTest {
    private final List<SocketChannel> opened = new ArrayList<>();
    private ServerSocketChannel server;
    private final ConnectionWatchdog watchdog = new ConnectionWatchdog(Duration.ofMinutes(10), 4);

    @AfterEach
    void close() throws Exception {
        for (SocketChannel c : opened) {
            c.close();
        }
        if (server != null) {
            server.close();
        }
        watchdog.close();
    }

    /** @return the server's side of a new loopback connection, after the watchdog was told of it */
    private SocketChannel accept() throws Exception {
        if (server == null) {
            server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        }
        opened.add(SocketChannel.open(server.getLocalAddress()));
        SocketChannel accepted = server.accept();
        opened.add(accepted);
        watchdog.accepted(accepted);
        return accepted;
    }

    @Test
    void aConnectionWhoseRequestIsBeingWorkedOnStaysAsATrustedOneDoesAndTheOldestIdleOneMakesRoom()
            throws Exception {
        SocketChannel trusted = accept();
        watchdog.authenticated(trusted.getRemoteAddress());
        SocketChannel signed = accept();
        // Its request is read; authentication is waiting for the nonce's force, so it is not trusted yet.
        watchdog.working(signed.getRemoteAddress());
        SocketChannel idle = accept();
        SocketChannel last = accept(); // the last slot: the oldest connection neither trusted nor worked on goes
        assertTrue(trusted.isOpen(), "a trusted connection was evicted");
        assertTrue(signed.isOpen(), "a connection was evicted while the agent worked on its request");
        assertFalse(idle.isOpen(), "the oldest idle unauthenticated connection should have made room");
        assertTrue(last.isOpen());
    }
}
