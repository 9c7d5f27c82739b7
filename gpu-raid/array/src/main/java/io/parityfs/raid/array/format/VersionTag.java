package io.parityfs.raid.array.format;

/**
 * A caller's tag on one object version: two numbers the array stores with the version and gives
 * back, never interprets. The storage node puts a (writer generation, group sequence) pair there,
 * so that a reader can tell which chunk versions were written together.
 *
 * <p>Set with {@code ObjectWriter.tag} before the commit, it is committed atomically with the
 * version, in its manifest ({@link ManifestFormat} version 2), and written in every shard header
 * of the version ({@link ShardFormat} version 2) so that a manifest rebuilt from the headers keeps
 * it. {@link ObjectManifest#tag()} (and so {@code ObjectStore.stat}) returns it; every rewrite of
 * the version's files (rebuild, scrub, manifest roll-forward and recovery) keeps it. A version
 * written without one, and every version read from a format-1 manifest, has {@link #NONE}.
 * Immutable.
 *
 * @param generation the first number, >= 0 (the storage node: the writer's generation)
 * @param sequence the second number, >= 0 (the storage node: the sequence within the generation)
 */
public record VersionTag(long generation, long sequence) {
  /** No tag: (0, 0). Stored in the format-1 manifest and shard header, which have no tag field. */
  public static final VersionTag NONE = new VersionTag(0, 0);

  public VersionTag {
    if (generation < 0) {
      throw new IllegalArgumentException(
          "version tag generation (" + generation + ") must be >= 0");
    }
    if (sequence < 0) {
      throw new IllegalArgumentException("version tag sequence (" + sequence + ") must be >= 0");
    }
  }

  /** Whether this is {@link #NONE}: (0, 0), which a caller cannot tell from "no tag". */
  public boolean isNone() {
    return generation == 0 && sequence == 0;
  }
}
