/**
 * The array's throughput harness, run by the {@code bench} profile ({@code mvn -pl gpu-raid/array
 * -Pbench test-compile exec:exec}): {@link io.parityfs.raid.bench.ArrayBenchmark} times the RAID
 * array ({@code ObjectStore}, RAID-6 4+2 over 6 drive directories) against raw O_DIRECT and
 * plain-file baselines and writes {@code docs/benchmarks/array.json}. It shares {@code
 * RunEnvironment}, {@code Throughput} and {@code Timed} with the codec's benchmark (gpu-raid/codec's
 * test-jar).
 */
package io.parityfs.raid.bench;
