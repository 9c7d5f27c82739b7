/**
 * The storage node's test kit, exported in the server's test-jar for the modules above it: the
 * typed configuration of an in-process test node ({@link io.parityfs.node.testing.TestNodeConfig}).
 */
package io.parityfs.node.testing;
