package io.dogama.agent.client.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * An answer's body read into memory up to a bound: whatever stands at the agent's address (another
 * server, a proxy, a broken agent) cannot make the client hold more than that. An answer that declares a
 * longer body is refused before any of it is read; one that is longer than it declared, or chunked, is
 * refused as soon as it passes the bound, and its connection is dropped.
 */
public final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The answer passed the bound; the message names the bound only. */
    public static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        TooLargeException(long max) {
            super("an answer larger than " + max + " bytes");
        }
    }

    private final long max;
    private final boolean declaredTooLong;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    private BoundedBody(long max, boolean declaredTooLong) {
        this.max = max;
        this.declaredTooLong = declaredTooLong;
    }

    /**
     * @param max most body bytes read
     * @return a handler whose subscribers keep at most {@code max} bytes
     */
    public static HttpResponse.BodyHandler<byte[]> handler(int max) {
        return info -> new BoundedBody(max,
                info.headers().firstValueAsLong("Content-Length").orElse(0) > max);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (declaredTooLong) {
            refuse();
            return;
        }
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer b : items) {
            if (received.size() + (long) b.remaining() > max) {
                refuse();
                return;
            }
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            received.writeBytes(copy);
        }
    }

    private void refuse() {
        subscription.cancel();
        body.completeExceptionally(new TooLargeException(max));
    }

    @Override
    public void onError(Throwable t) {
        body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        body.complete(received.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }
}
