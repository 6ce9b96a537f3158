package io.dogama.agent.registry.internal;

import io.dogama.agent.registry.InstanceRecord;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The registry's own share of a compare-and-set and of an open's read of a record: the MAC alone, verify + parse,
 * encode + sign, for a typical record (about 1 KiB). Lives beside the codec because the codec is
 * package-private; see docs/bench-registry.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1)
@State(Scope.Benchmark)
public class RecordCodecBench {
    RecordMac mac;
    InstanceRecord record;
    byte[] stored;

    @Setup
    public void setUp() {
        mac = new RecordMac(new byte[RecordMac.KEY_BYTES]);
        record = Samples.record("inst-0042", 42);
        stored = RecordCodec.encodeRecord(mac, "inst-0042#1", record, 7);
    }

    /** HMAC-SHA-256 verification of the stored bytes. */
    @Benchmark
    public boolean macVerify() {
        return mac.verify("inst-0042#1", stored);
    }

    /** What an open does with each stored record: verify, then strict parse and record validation. */
    @Benchmark
    public Object decode() throws RecordCodec.MalformedRecordException {
        return RecordCodec.decodeRecord(mac, "inst-0042#1", "inst-0042", stored);
    }

    /** What a compare-and-set adds besides the decode of the current value: encode and sign. */
    @Benchmark
    public byte[] encode() {
        return RecordCodec.encodeRecord(mac, "inst-0042#0", record, 8);
    }
}
