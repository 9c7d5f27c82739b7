package io.parityfs.node;

import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.codec.select.CodecSelection;
import java.util.Optional;

/**
 * What the network server needs of a storage target ({@link NodeServices#targets()}): its
 * identity and state for the admin replies, its chunk store for the data requests, and its array
 * for the drive and task operations. Not its configuration, scrub schedule or file systems,
 * which stay the node's. Implemented by {@link StorageTarget}; thread-safe, as it.
 */
public interface TargetView {
  /** The target id: the array's id, as a string. */
  String id();

  /** The target's name in the node configuration. */
  String name();

  /** The array's protection, e.g. {@code raid6:4+2} or {@code mirror:3}. */
  String protection();

  ArrayState state();

  /** Bytes of chunk data the target can hold (estimate). */
  long capacityBytes();

  /** Bytes of chunk data that still fit (estimate). */
  long freeBytes();

  /** The codec chosen for the array's geometry; empty for a mirror (no parity). */
  Optional<CodecSelection> codec();

  /** The chunks: what READ, WRITE, STAT, DELETE, LIST and SYNC work on. */
  ChunkStore chunks();

  /** The array: drive states, fail and replace a drive, rebuilds and the scrubber. */
  RaidArray array();
}
