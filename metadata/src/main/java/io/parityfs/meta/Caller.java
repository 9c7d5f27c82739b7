package io.parityfs.meta;

import java.util.List;
import java.util.Objects;

/**
 * Who calls the namespace: a user, the groups it belongs to, and the umask applied to the mode
 * of what it creates. The Hadoop {@code FileSystem} builds one from {@code
 * UserGroupInformation.getCurrentUser()} and {@code fs.permissions.umask-mode}; a {@link
 * Namespace} acts for one caller ({@link Namespace#as(Caller)}).
 *
 * @param user the user name, 1..256 characters
 * @param groups the user's groups, the first being its primary group (the group of what it
 *     creates when the parent directory gives none)
 * @param umask mode bits removed from every create and mkdir, 0..0777 (Hadoop's default 022)
 */
public record Caller(String user, List<String> groups, int umask) {
  public Caller {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(groups, "groups");
    if (user.isEmpty() || user.length() > 256) {
      throw new IllegalArgumentException("user (" + user + ") must be 1..256 characters");
    }
    for (String g : groups) {
      if (g == null || g.isEmpty() || g.length() > 256) {
        throw new IllegalArgumentException("group (" + g + ") must be 1..256 characters");
      }
    }
    if (umask < 0 || umask > 0777) {
      throw new IllegalArgumentException("umask (" + Integer.toOctalString(umask)
          + ") must be in 0..0777");
    }
    groups = List.copyOf(groups);
  }

  /** A user in the given groups with umask 022. */
  public static Caller of(String user, String... groups) {
    return new Caller(user, List.of(groups), 022);
  }

  public Caller withUmask(int newUmask) {
    return new Caller(user, groups, newUmask);
  }

  boolean inGroup(String group) {
    return groups.contains(group);
  }
}
