/**
 * Results in the project's benchmark file format ({@code docs/benchmarks/<name>.json}: benchmark,
 * command, date, jdk, machine, metrics, ratios), shared by the benchmarks and the GPU self-check.
 */
package io.parityfs.raid.report;
