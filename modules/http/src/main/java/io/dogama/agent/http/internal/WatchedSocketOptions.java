package io.dogama.agent.http.internal;

import io.helidon.common.socket.SocketOptions;
import java.net.Socket;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Helidon's default socket options, plus a hook that hands every accepted connection to the
 * {@link ConnectionWatchdog}. Helidon calls {@link #configureSocket(SocketChannel)} once per
 * accepted connection, before reading from it; this is the only place its API exposes the channel.
 */
final class WatchedSocketOptions implements SocketOptions {
    private final SocketOptions delegate = SocketOptions.builder().build();
    private final ConnectionWatchdog watchdog;

    WatchedSocketOptions(ConnectionWatchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public void configureSocket(Socket socket) {
        delegate.configureSocket(socket);
    }

    @Override
    public void configureSocket(SocketChannel channel) {
        delegate.configureSocket(channel);
        watchdog.accepted(channel);
    }

    @Override
    public Map<SocketOption<?>, Object> socketOptions() {
        return delegate.socketOptions();
    }

    @Override
    public Duration connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Duration readTimeout() {
        return delegate.readTimeout();
    }

    @Override
    public Optional<Integer> socketReceiveBufferSize() {
        return delegate.socketReceiveBufferSize();
    }

    @Override
    public Optional<Integer> socketSendBufferSize() {
        return delegate.socketSendBufferSize();
    }

    @Override
    public boolean socketReuseAddress() {
        return delegate.socketReuseAddress();
    }

    @Override
    public boolean socketKeepAlive() {
        return delegate.socketKeepAlive();
    }

    @Override
    public boolean tcpNoDelay() {
        return delegate.tcpNoDelay();
    }
}
