package io.parityfs.fuse;

import java.util.List;

/**
 * Maps the kernel's numeric ids to the names the namespace stores, and back. The system map
 * ({@link #system()}) asks the local user database ({@code getent}, {@code id}) and caches the
 * answers for the life of the mount; an id with no name maps to its decimal digits, and a name
 * with no id (a user known to the cluster but not to this machine) to {@link #NOBODY}, unless
 * the name is itself a number. Implementations are thread-safe.
 */
public interface IdentityMap {
  /** The overflow id (Linux's {@code nobody}/{@code nogroup}): names without a local id. */
  long NOBODY = 65534;

  /** The user name of {@code uid}. */
  String userName(long uid);

  /** The group name of {@code gid}. */
  String groupName(long gid);

  /** The uid of {@code user}. */
  long uid(String user);

  /** The gid of {@code group}. */
  long gid(String group);

  /** The groups of {@code user}, its primary group first ({@code gid}'s name). */
  List<String> groups(String user, long gid);

  /** The map of this machine's user database, cached. */
  static IdentityMap system() {
    return new SystemIdentityMap();
  }
}
