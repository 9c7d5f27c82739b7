/**
 * Throughput harnesses for the parity codecs: plain {@code main} programs run by the {@code bench}
 * profile ({@code mvn -pl gpu-raid -Pbench test-compile exec:exec}), not JMH and not unit tests.
 * {@link io.parityfs.raid.bench.CodecCpuBenchmark} times the CPU codec against Hadoop's
 * pure-Java coders on one thread and writes {@code docs/benchmarks/codec-cpu.json};
 * {@link io.parityfs.raid.bench.ArrayBenchmark} times the RAID array ({@code ObjectStore}, RAID-6
 * 4+2 over 6 drive directories) against raw O_DIRECT and plain-file baselines and writes
 * {@code docs/benchmarks/array.json} ({@code -Dbench.main=io.parityfs.raid.bench.ArrayBenchmark}).
 */
package io.parityfs.raid.bench;
