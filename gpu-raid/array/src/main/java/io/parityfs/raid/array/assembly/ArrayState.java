package io.parityfs.raid.array.assembly;

/** The state of a whole array, derived from its drive states and its geometry. */
public enum ArrayState {
  /** Every data slot ONLINE. */
  OPTIMAL,
  /** Some slots FAILED or MISSING, but no more than the geometry tolerates (m). */
  DEGRADED,
  /** Degraded, with a rebuild running onto a spare or replacement drive. */
  REBUILDING,
  /** More slots lost than the geometry tolerates: some objects cannot be read. */
  FAILED
}
