package io.parityfs.fuse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link IdentityMap} over {@code getent passwd|group} and {@code id -Gn} (so NSS sources such
 * as LDAP count), each answer cached for the life of the map: a user database change needs a
 * remount.
 */
final class SystemIdentityMap implements IdentityMap {
  private final Map<Long, String> users = new ConcurrentHashMap<>();
  private final Map<Long, String> groupNames = new ConcurrentHashMap<>();
  private final Map<String, Long> uids = new ConcurrentHashMap<>();
  private final Map<String, Long> gids = new ConcurrentHashMap<>();
  private final Map<String, List<String>> memberships = new ConcurrentHashMap<>();

  @Override
  public String userName(long uid) {
    return users.computeIfAbsent(uid, u -> field(run("getent", "passwd", Long.toString(u)), 0,
        Long.toString(u)));
  }

  @Override
  public String groupName(long gid) {
    return groupNames.computeIfAbsent(gid, g -> field(run("getent", "group", Long.toString(g)),
        0, Long.toString(g)));
  }

  @Override
  public long uid(String user) {
    return uids.computeIfAbsent(user, u -> number(run("getent", "passwd", u), u));
  }

  @Override
  public long gid(String group) {
    return gids.computeIfAbsent(group, g -> number(run("getent", "group", g), g));
  }

  @Override
  public List<String> groups(String user, long gid) {
    String primary = groupName(gid);
    return memberships.computeIfAbsent(user + ":" + primary, k -> {
      List<String> out = new ArrayList<>();
      out.add(primary);
      String text = run("id", "-Gn", user);
      if (text != null) {
        for (String g : text.trim().split("\\s+")) {
          if (!g.isEmpty() && !out.contains(g)) {
            out.add(g);
          }
        }
      }
      return List.copyOf(out);
    });
  }

  /** Field {@code i} of a colon-separated database line, or {@code fallback}. */
  private static String field(String line, int i, String fallback) {
    if (line == null) {
      return fallback;
    }
    String[] f = line.trim().split(":", -1);
    return f.length > i && !f[i].isEmpty() ? f[i] : fallback;
  }

  /** The id (third field) of a database line; else the name as a number; else nobody. */
  private static long number(String line, String name) {
    String id = field(line, 2, null);
    for (String s : new String[] {id, name}) {
      if (s != null && !s.isEmpty() && s.chars().allMatch(Character::isDigit) && s.length() < 11) {
        return Long.parseLong(s);
      }
    }
    return NOBODY;
  }

  /** What a command prints on success, or null (missing entry, missing command, timeout). */
  private static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      p.getOutputStream().close();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
