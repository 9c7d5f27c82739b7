package io.parityfs.fuse;

import java.util.List;
import java.util.Objects;

/**
 * Who asks: the uid, gid and supplementary group ids of the process behind one FUSE request
 * (the binding reads the ids from the request's context and the groups from {@code
 * /proc/<pid>/status}, as libfuse's {@code fuse_getgroups} does).
 *
 * @param groups the supplementary group ids (may include {@code gid}); empty when unknown
 */
public record Requester(long uid, long gid, List<Long> groups) {
  /** The requester of work the mount does on its own (closing files at unmount). */
  public static final Requester MOUNT = new Requester(-1, -1);

  public Requester {
    groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
  }

  /** A requester whose supplementary groups are unknown (its user database groups count). */
  public Requester(long uid, long gid) {
    this(uid, gid, List.of());
  }
}
