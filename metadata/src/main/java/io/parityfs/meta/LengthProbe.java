package io.parityfs.meta;

import java.io.IOException;

/**
 * What lease recovery asks the storage side: how many bytes of a file its targets hold. The
 * client library answers it by listing the file's chunks on its targets (chunk {@code i} of
 * {@code chunkSize} on {@code targets[i % stripeCount]}): the stored prefix (see {@code
 * io.parityfs.meta.cluster.ChunkLengthProbe}).
 * The metadata layer knows no storage node, so it takes the answer from whoever recovers.
 */
@FunctionalInterface
public interface LengthProbe {
  /** The bytes the storage targets hold for {@code file}; IOException when they can't say. */
  long length(FileStatus file) throws IOException;
}
