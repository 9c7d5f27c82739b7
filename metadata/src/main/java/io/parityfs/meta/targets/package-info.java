/**
 * The storage targets as the metadata layer sees them, and the choice of targets for new files.
 *
 * <ul>
 *   <li>{@link io.parityfs.meta.targets.TargetRegistry}: a live view over the storage nodes'
 *       registry znodes ({@link io.parityfs.meta.registry}), giving each target's {@link
 *       io.parityfs.meta.targets.Reachability} (ONLINE, PROBABLY_OFFLINE, OFFLINE) and {@link
 *       io.parityfs.meta.targets.Consistency} (GOOD, DEGRADED, REBUILDING, FAILED) in the manner
 *       of BeeGFS, and persistent offline marks for the cluster manager.
 *   <li>{@link io.parityfs.meta.targets.TargetPlacement}: fills a {@link io.parityfs.meta.Layout}'s
 *       targets from its pool, distinct, weighted by free space, spread over nodes.
 * </ul>
 *
 * {@code docs/metadata.md} ("Storage targets and placement") states the rules.
 */
package io.parityfs.meta.targets;
