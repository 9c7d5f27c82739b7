/**
 * Whole-system pieces: the in-process mini cluster, end-to-end and fault tests, the Hadoop
 * contract tests against a live cluster, system benchmarks and the local quickstart cluster.
 *
 * <p>Not built yet: see the local-cluster issue. This package holds only this description.
 */
package io.parityfs.integration;
