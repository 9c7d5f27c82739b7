/**
 * Throughput harnesses for the parity codecs: plain {@code main} programs run by the {@code bench}
 * profile ({@code mvn -pl gpu-raid/codec -Pbench test-compile exec:exec}), not JMH and not unit
 * tests. {@link io.parityfs.raid.bench.CodecCpuBenchmark} times the CPU codec against Hadoop's
 * pure-Java coders on one thread and writes {@code docs/benchmarks/codec-cpu.json}. The array's
 * benchmark (gpu-raid/array, same package) shares {@code RunEnvironment}, {@code Throughput} and
 * {@code Timed} through this module's test-jar.
 */
package io.parityfs.raid.bench;
