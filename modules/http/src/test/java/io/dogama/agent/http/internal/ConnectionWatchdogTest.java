package io.dogama.agent.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
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
        watchdog.authenticated(key(trusted));
        SocketChannel signed = accept();
        // Its request is read; authentication is waiting for the nonce's force, so it is not trusted yet.
        watchdog.working(key(signed));
        SocketChannel idle = accept();
        SocketChannel last = accept(); // the last slot: the oldest connection neither trusted nor worked on goes
        assertTrue(trusted.isOpen(), "a trusted connection was evicted");
        assertTrue(signed.isOpen(), "a connection was evicted while the agent worked on its request");
        assertFalse(idle.isOpen(), "the oldest idle unauthenticated connection should have made room");
        assertTrue(last.isOpen());
    }

    /**
     * Session 38's review: one client address holds every slot but the last and reopens each connection it loses.
     * With the oldest connection of all evicted, another client's connection became the oldest within as many
     * accepts as the first held, and a signed request still on its way in was reset. The address holding the most
     * now gives up its own oldest.
     */
    @Test
    void aClientThatReopensEveryConnectionItLosesEvictsOnlyItsOwn() throws Exception {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
        List<SocketChannel> flood = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            flood.add(acceptFrom("127.0.0.2"));
        }
        SocketChannel client = acceptFrom("127.0.0.1"); // the last slot: one of the flood's makes room
        assertTrue(client.isOpen());
        for (int round = 0; round < 10; round++) {
            flood.add(acceptFrom("127.0.0.2"));
            assertTrue(client.isOpen(), "the other client's connection was evicted after " + (round + 1)
                    + " reconnections of the flood");
        }
        assertEquals(2, flood.stream().filter(SocketChannel::isOpen).count(),
                "the flood keeps every slot but the client's and the one made free at each accept");
    }

    /**
     * A flood spread over many addresses, one connection each, while the control plane has two requests on their
     * way in: the control plane's address holds the most, but a quarter of the slots is the least that marks a
     * flood, so the oldest connection of all goes, as before the per-address rule (a first version of it evicted
     * the control plane's at once).
     */
    @Test
    void aFloodSpreadOverManyAddressesEvictsTheOldestOfAll() throws Exception {
        ConnectionWatchdog sixteen = new ConnectionWatchdog(Duration.ofMinutes(10), 16);
        try {
            server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
            List<SocketChannel> flood = new ArrayList<>();
            int next = 2;
            for (int i = 0; i < 13; i++) {
                flood.add(acceptFrom("127.0.0." + next++, sixteen));
            }
            SocketChannel first = acceptFrom("127.0.0.1", sixteen);
            SocketChannel second = acceptFrom("127.0.0.1", sixteen);
            for (int round = 0; round < 5; round++) {
                flood.add(acceptFrom("127.0.0." + next++, sixteen));
                assertFalse(flood.get(round).isOpen(), "round " + round + ": the oldest connection of all stayed");
                assertTrue(first.isOpen() && second.isOpen(), "round " + round + ": the control plane's was evicted");
            }
        } finally {
            sixteen.close();
        }
    }

    /** An IPv6 host commonly holds a whole /64: its addresses are one client; an IPv4 address is one on its own. */
    @Test
    void anIpv6ClientIsItsSlash64() throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.ofLiteral("::1"), 8480);
        Object a = ConnectionWatchdog.clientOf(new ConnectionWatchdog.Key(local,
                new InetSocketAddress(InetAddress.ofLiteral("2001:db8:1:2::10"), 5000)));
        Object b = ConnectionWatchdog.clientOf(new ConnectionWatchdog.Key(local,
                new InetSocketAddress(InetAddress.ofLiteral("2001:db8:1:2:ffff::7"), 5001)));
        Object c = ConnectionWatchdog.clientOf(new ConnectionWatchdog.Key(local,
                new InetSocketAddress(InetAddress.ofLiteral("2001:db8:1:3::10"), 5000)));
        assertEquals(a, b);
        assertNotEquals(a, c);
        assertNotEquals(ConnectionWatchdog.clientOf(new ConnectionWatchdog.Key(local,
                new InetSocketAddress(InetAddress.ofLiteral("192.0.2.1"), 1))),
                ConnectionWatchdog.clientOf(new ConnectionWatchdog.Key(local,
                        new InetSocketAddress(InetAddress.ofLiteral("192.0.2.2"), 1))));
    }

    /** @return the server's side of a new connection from {@code clientAddress}, after the watchdog was told of it */
    private SocketChannel acceptFrom(String clientAddress) throws Exception {
        return acceptFrom(clientAddress, watchdog);
    }

    private SocketChannel acceptFrom(String clientAddress, ConnectionWatchdog to) throws Exception {
        SocketChannel c = SocketChannel.open();
        opened.add(c);
        c.bind(new InetSocketAddress(InetAddress.ofLiteral(clientAddress), 0));
        c.connect(server.getLocalAddress());
        SocketChannel accepted = server.accept();
        opened.add(accepted);
        to.accepted(accepted);
        return accepted;
    }

    /** The key's written-out equals and hashCode: both ends count, as they did in the record's own. */
    @Test
    void aKeyIsEqualOnlyToOneWithTheSameTwoEnds() {
        InetSocketAddress agent = new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 8480);
        InetSocketAddress otherAgent = new InetSocketAddress(InetAddress.ofLiteral("127.0.0.2"), 8480);
        InetSocketAddress client = new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 40000);
        InetSocketAddress otherClient = new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 40001);
        ConnectionWatchdog.Key k = new ConnectionWatchdog.Key(agent, client);
        ConnectionWatchdog.Key same = new ConnectionWatchdog.Key(
                new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 8480), client);
        assertEquals(k, same);
        assertEquals(k.hashCode(), same.hashCode());
        assertNotEquals(k, new ConnectionWatchdog.Key(otherAgent, client), "the agent's end counts");
        assertNotEquals(k, new ConnectionWatchdog.Key(agent, otherClient), "the client's end counts");
        assertNotEquals(k, new ConnectionWatchdog.Key(client, agent), "the ends are not interchangeable");
        assertNotEquals(k, new ConnectionWatchdog.Key(agent, null));
        assertEquals(new ConnectionWatchdog.Key(null, null), new ConnectionWatchdog.Key(null, null));
        assertNotEquals(k, (Object) "a string");
    }

    private static ConnectionWatchdog.Key key(SocketChannel accepted) throws Exception {
        return new ConnectionWatchdog.Key(accepted.getLocalAddress(), accepted.getRemoteAddress());
    }

    /**
     * Two connections from the same client address and port, to two addresses of a listener on a wildcard
     * address: both are watched. Keyed by the client's end alone, the second hid the first, which was then
     * never evicted nor timed out, and no slot was ever freed again.
     */
    @Test
    void twoConnectionsFromOneClientPortToTwoAgentAddressesAreBothWatched() throws Exception {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 0));
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        SocketChannel first = SocketChannel.open();
        opened.add(first);
        first.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        first.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
        SocketChannel second = SocketChannel.open();
        opened.add(second);
        second.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        second.bind(first.getLocalAddress());
        first.connect(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port));
        SocketChannel hidden = server.accept();
        opened.add(hidden);
        watchdog.accepted(hidden);
        second.connect(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.2"), port));
        SocketChannel other = server.accept();
        opened.add(other);
        watchdog.accepted(other);
        assertEquals(hidden.getRemoteAddress(), other.getRemoteAddress(), "the same client end");
        assertEquals(2, watchdog.tracked());

        // Two fresh connections take the last slots: the oldest unauthenticated one, the first, makes room.
        SocketChannel third = SocketChannel.open(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port));
        opened.add(third);
        SocketChannel accepted = server.accept();
        opened.add(accepted);
        watchdog.accepted(accepted);
        SocketChannel fourth = SocketChannel.open(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port));
        opened.add(fourth);
        SocketChannel last = server.accept();
        opened.add(last);
        watchdog.accepted(last);
        assertFalse(hidden.isOpen(), "the first of the two was never evicted");
        assertTrue(other.isOpen());
        assertTrue(last.isOpen());
    }
}
