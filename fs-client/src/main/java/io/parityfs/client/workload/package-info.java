/**
 * Workloads that measure a ParityFS cluster through the client core, reusable outside the
 * command line: {@link io.parityfs.client.workload.CheckpointWorkload} (DLIO-style: N ranks each write
 * one shard file, then read it back and verify it) and {@link
 * io.parityfs.client.workload.SmallFilesWorkload} (create, read and delete many small files). Each
 * runs on a {@link io.parityfs.client.ParityClient} the caller owns, reports live {@link
 * io.parityfs.client.workload.Progress} on the caller's thread, and returns a {@link
 * io.parityfs.client.workload.BenchResult}: per phase, bytes, files, seconds and latency percentiles
 * ({@link io.parityfs.client.workload.LatencyHistogram}). File contents are derived from a seed, the
 * file's number and the offset, so verification needs no stored copy. A failure stops every
 * worker and surfaces as a {@link io.parityfs.client.workload.BenchException}. No picocli here: {@code
 * parityfs bench} ({@code io.parityfs.cli.BenchCommands}) is one caller, a demo another.
 */
package io.parityfs.client.workload;
