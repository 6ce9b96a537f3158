package io.dogama.agent.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.http.HttpLimits;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.http.Http1HeadersParser;
import io.helidon.http.WritableHeaders;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an unauthenticated client can make the agent hold for the request timeout, through Helidon's own parser, at
 * the agent's own limits: an open header block, and a chunk arriving a byte at a time. Each is a few kB, not MBs;
 * 63 connections of either (the connection limit less one) must leave the 96 MiB heap to the control plane (with
 * -XX:+ExitOnOutOfMemoryError, a full heap ends the agent).
 */
class UnauthenticatedHeapTest {
    /** Per open header block, at most (measured: about 81 KB at 2 KiB, 1.25 MB at 8 KiB). */
    private static final long HEADER_BLOCK_BYTES = 200_000;

    /**
     * Helidon 4.5 keeps a first {@code Connection: close} as a shared constant, and each later {@code Connection}
     * line then copies every value before it: held memory grows with the square of the lines the budget allows.
     */
    @Test
    void anOpenHeaderBlockOfRepeatedConnectionLinesHoldsLittle() {
        StringBuilder block = new StringBuilder("Connection: close\r\n");
        while (block.length() + 13 + 2 <= HttpLimits.DEFAULT_MAX_HEADER_BYTES) {
            block.append("Connection:\r\n");
        }
        byte[] bytes = block.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
        int blocks = 40;
        List<WritableHeaders<?>> held = new ArrayList<>();
        collect();
        long before = used();
        for (int i = 0; i < blocks; i++) {
            boolean[] given = {false};
            DataReader reader = DataReader.create(() -> {
                if (given[0]) {
                    return null;
                }
                given[0] = true;
                return bytes;
            }, false);
            held.add(Http1HeadersParser.readHeaders(reader, HttpLimits.DEFAULT_MAX_HEADER_BYTES, true));
        }
        collect();
        long grown = used() - before;
        assertEquals(blocks, held.size());
        assertTrue(grown < blocks * HEADER_BLOCK_BYTES, blocks + " header blocks of " + bytes.length
                + " bytes hold " + grown + " bytes of heap");
    }

    /** Helidon's getBuffer keeps every socket read of a chunk as a node until its last byte comes. */
    @Test
    void aChunkArrivingOneByteAtATimeIsNotHeldAsOneNodePerRead() {
        int size = 0xffff;
        List<WeakReference<byte[]>> reads = new ArrayList<>();
        int[] calls = {0};
        long[] liveHalfway = {-1};
        StrictChunkReader r = new StrictChunkReader(() -> {
            int i = calls[0]++;
            if (i == 0) {
                return "ffff\r\n".getBytes(StandardCharsets.US_ASCII);
            }
            if (i == size / 2) { // the client is half-way through its chunk
                collect();
                liveHalfway[0] = reads.stream().filter(w -> w.get() != null).count();
            }
            if (i > size) {
                return "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            }
            byte[] one = {'x'};
            reads.add(new WeakReference<>(one));
            return one;
        }, HttpLimits.DEFAULT_MAX_BODY_BYTES);
        assertEquals("ffff", r.readLine());
        BufferData data = r.readBuffer(size);
        assertEquals(size, data.available());
        assertEquals('x', data.get(size - 1));
        assertTrue(liveHalfway[0] >= 0 && liveHalfway[0] < 1_000,
                liveHalfway[0] + " one-byte reads held half-way through one chunk");
        r.skip(2);
        assertEquals("0", r.readLine(), "the chunk's CR LF checked, the last chunk next");
    }

    private static long used() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static void collect() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
    }
}
