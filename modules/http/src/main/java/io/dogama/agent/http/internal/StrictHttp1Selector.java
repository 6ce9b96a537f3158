package io.dogama.agent.http.internal;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * Helidon's HTTP/1 connection, reading through a {@link StrictChunkReader}. Helidon offers no
 * configuration that makes its chunked parser strict or bounded, and no hook on the bytes of a body;
 * the one seam it has is the connection selector, which hands the connection its reader. The bytes
 * Helidon already read to pick the protocol are passed on first, unchanged.
 */
final class StrictHttp1Selector implements ServerConnectionSelector {
    /**
     * The peer of the connection whose thread runs: Helidon answers the requests it refuses itself
     * ({@link ProblemDirectHandler}) on that thread, without telling the handler who sent them.
     */
    static final ScopedValue<SocketAddress> PEER = ScopedValue.newInstance();

    private final Http1ConnectionSelector delegate;
    private final int maxBodyBytes;

    StrictHttp1Selector(Http1Config config, int maxBodyBytes) {
        this.delegate = Http1ConnectionSelector.builder().config(config).build();
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public int bytesToIdentifyConnection() {
        return delegate.bytesToIdentifyConnection();
    }

    @Override
    public Support supports(BufferData data) {
        return delegate.supports(data);
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return delegate.supportedApplicationProtocols();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        DataReader socket = ctx.dataReader();
        StrictChunkReader strict = new StrictChunkReader(() -> {
            socket.ensureAvailable(); // blocks for the next bytes; at the end of the stream it throws as Helidon expects
            return socket.readBytes(socket.available());
        }, maxBodyBytes);
        return new PeerScoped(delegate.connection(new Context(ctx, strict)), ctx.remotePeer().address());
    }

    /** Helidon's connection, run with its peer in {@link #PEER}. */
    private record PeerScoped(ServerConnection connection, SocketAddress peer) implements ServerConnection {
        @Override
        public void handle(Limit limit) throws InterruptedException {
            ScopedValue.where(PEER, peer).call(() -> {
                connection.handle(limit);
                return null;
            });
        }

        @Override
        public Duration idleTime() {
            return connection.idleTime();
        }

        @Override
        public void close(boolean interrupt) {
            connection.close(interrupt);
        }
    }

    /** The connection's context with the strict reader in place of the socket's. */
    private record Context(ConnectionContext ctx, DataReader reader) implements ConnectionContext {
        @Override
        public ListenerContext listenerContext() {
            return ctx.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return ctx.executor();
        }

        @Override
        public DataWriter dataWriter() {
            return ctx.dataWriter();
        }

        @Override
        public DataReader dataReader() {
            return reader;
        }

        @Override
        public Router router() {
            return ctx.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return ctx.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return ctx.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return ctx.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return ctx.localPeer();
        }

        @Override
        public boolean isSecure() {
            return ctx.isSecure();
        }

        @Override
        public String socketId() {
            return ctx.socketId();
        }

        @Override
        public String childSocketId() {
            return ctx.childSocketId();
        }
    }
}
