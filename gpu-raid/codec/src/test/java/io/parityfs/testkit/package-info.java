/**
 * The test kit every module's tests share, through gpu-raid/codec's test-jar (the codec depends
 * on no other module of ours, so every module can take it at test scope): {@link
 * io.parityfs.testkit.Eventually} and {@link io.parityfs.testkit.Timing} (polling with waits
 * scaled for the machine) and {@link io.parityfs.testkit.SystemDeps} (skip, or fail on CI, when
 * a system dependency is missing) and {@link io.parityfs.testkit.TestDirs} (removing a test's or
 * a benchmark's folders). Node configurations are written with {@code
 * io.parityfs.node.config.NodeProperties}, the node's typed keys.
 */
package io.parityfs.testkit;
