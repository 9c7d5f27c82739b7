package io.parityfs.meta.targets;

/**
 * Whether a target can be reached, in the manner of BeeGFS's reachability states. TargetPlacement uses
 * only {@link #ONLINE} targets.
 */
public enum Reachability {
  /** Its node's ephemeral online record exists (the node's ZooKeeper session is alive). */
  ONLINE,
  /**
   * Its node's online record is absent, for less than the registry's {@code offlineTimeout}
   * since this registry last saw it (or since the registry opened, for a node it never saw
   * online). A restart or a short session loss looks like this.
   */
  PROBABLY_OFFLINE,
  /**
   * Absent for the {@code offlineTimeout} or longer, or declared offline ({@link
   * TargetRegistry#markOffline}) and its node has not registered again since.
   */
  OFFLINE
}
