package io.parityfs.node.config;

import io.parityfs.meta.Layout;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.raid.array.ArrayConfig;
import io.parityfs.raid.array.Protection;
import io.parityfs.raid.codec.CodecBackend;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a storage node's properties file into a {@link NodeConfig}. Every key is declared once
 * here with its default; an unknown key (a typo) is an error, as is any bad value, and all
 * problems are reported together in one {@link ConfigException} naming the file and each key.
 * Relative paths are resolved against the file's folder.
 */
public final class NodeConfigParser {
  /** Node-level keys and their defaults ("" means: none, or derived). */
  static final List<String[]> NODE_KEYS = List.of(
      new String[] {"node.name", ""},
      new String[] {"node.idFile", "node.id"},
      new String[] {"node.listen.host", "0.0.0.0"},
      new String[] {"node.listen.port", "7110"},
      new String[] {"node.advertise.host", ""},
      new String[] {"metrics.host", "0.0.0.0"},
      new String[] {"metrics.port", "7111"},
      new String[] {"zookeeper.connect", "localhost:2181"},
      new String[] {"zookeeper.chroot", ""},
      new String[] {"zookeeper.sessionTimeout", "30s"},
      new String[] {"zookeeper.connectionTimeout", "15s"},
      new String[] {"zookeeper.digestFile", ""},
      new String[] {"registry.refreshInterval", "10s"},
      new String[] {"server.workerThreads", "32"},
      new String[] {"server.maxRequestsPerConnection", "64"},
      new String[] {"server.maxBytesPerConnection", "8M"},
      new String[] {"server.maxRequestsPerNode", "4096"},
      new String[] {"server.maxBytesPerNode", "512M"},
      new String[] {"server.idleTimeout", "60s"},
      new String[] {"server.drainTimeout", "10s"},
      new String[] {"cluster.manager.enabled", "true"},
      new String[] {"codec", "auto"},
      new String[] {"targets", ""});

  /** Per-target keys ({@code target.<name>.<key>}) and their defaults. */
  static final List<String[]> TARGET_KEYS = List.of(
      new String[] {"drives", ""},
      new String[] {"create", "false"},
      new String[] {"geometry", "raid6:4+2"},
      new String[] {"cellSize", "64K"},
      new String[] {"maxChunkSize", "64M"},
      new String[] {"hotSpares", "0"},
      new String[] {"codec", ""},
      new String[] {"scrubInterval", "7d"},
      new String[] {"gcInterval", "1h"},
      new String[] {"rebuild.idleRate", "0"},
      new String[] {"rebuild.busyRate", "256"},
      new String[] {"pool", Layout.DEFAULT_POOL});

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
  /** The longest duration any key takes: 100 years (well within a Duration's nanoseconds). */
  private static final Duration MAX_DURATION = Duration.ofDays(36_500);

  private final String source;
  private final Path base;
  private final Properties props;
  private final List<String> problems = new ArrayList<>();

  private NodeConfigParser(String source, Path base, Properties props) {
    this.source = source;
    this.base = base;
    this.props = props;
  }

  /**
   * Parses {@code file}.
   *
   * @throws ConfigException naming the file and every bad or unknown key
   * @throws IOException when the file cannot be read
   */
  public static NodeConfig parse(Path file) throws IOException, ConfigException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Path dir = file.toAbsolutePath().getParent();
    return new NodeConfigParser(file.toString(), dir, p).parse();
  }

  /** Parses properties that came from {@code source}, relative paths against {@code base}. */
  public static NodeConfig parse(Properties props, String source, Path base)
      throws ConfigException {
    return new NodeConfigParser(source, base, props).parse();
  }

  private NodeConfig parse() throws ConfigException {
    List<String> names = list("targets");
    Set<String> seen = new LinkedHashSet<>();
    for (String n : names) {
      if (!NAME.matcher(n).matches()) {
        problem("targets", "target name (" + n + ") must be 1-64 letters, digits, '_' or '-'");
      } else if (!seen.add(n)) {
        problem("targets", "target name (" + n + ") appears twice");
      }
    }
    if (names.isEmpty()) {
      problem("targets", "at least one target is needed (e.g. targets = t0, with"
          + " target.t0.drives = /mnt/nvme0/pfs, ...)");
    }
    checkUnknownKeys(seen);

    String name = get("node.name");
    if (name.isEmpty()) {
      name = hostName();
    }
    Path idFile = path("node.idFile");
    String listenHost = get("node.listen.host");
    int listenPort = port("node.listen.port", false);
    String advertise = get("node.advertise.host");
    if (advertise.isEmpty()) {
      advertise = isWildcard(listenHost) ? hostName() : listenHost;
    }
    String metricsHost = get("metrics.host");
    int metricsPort = port("metrics.port", true);
    String connect = get("zookeeper.connect");
    if (connect.isEmpty()) {
      problem("zookeeper.connect", "must name the ensemble, host:port[,host:port...]");
    }
    String chroot = get("zookeeper.chroot");
    String digest = "";
    String digestFile = get("zookeeper.digestFile");
    if (!digestFile.isEmpty()) {
      try {
        digest = ZooKeeperSettings.readDigestFile(base.resolve(digestFile));
      } catch (IOException e) {
        problem("zookeeper.digestFile", "cannot read " + digestFile + ": " + e.getMessage());
      }
    }
    Duration session = duration("zookeeper.sessionTimeout", false);
    Duration connecting = duration("zookeeper.connectionTimeout", false);
    ZooKeeperSettings zk = null;
    if (session != null && connecting != null && !connect.isEmpty()) {
      try {
        zk = new ZooKeeperSettings(connect, chroot, session, connecting, digest);
      } catch (IllegalArgumentException e) {
        // the message starts with the setting's name: chroot, connect, digest, ...
        String m = e.getMessage();
        String key = m.startsWith("chroot") ? "zookeeper.chroot"
            : m.startsWith("connect") ? "zookeeper.connect"
            : m.startsWith("digest") ? "zookeeper.digestFile" : "zookeeper.sessionTimeout";
        problem(key, m);
      }
    }
    Duration refresh = duration("registry.refreshInterval", false);
    CodecBackend nodeCodec = value("codec", CodecBackend::parse, CodecBackend.AUTO);

    List<TargetConfig> targets = new ArrayList<>();
    for (String t : seen) {
      if (NAME.matcher(t).matches()) {
        targets.add(target(t, nodeCodec));
      }
    }
    Set<Path> allDrives = new TreeSet<>();
    for (TargetConfig t : targets) {
      for (Path d : t.drives()) {
        if (!allDrives.add(d)) {
          problem("target." + t.name() + ".drives", "drive (" + d + ") is listed twice");
        }
      }
    }
    io.parityfs.node.net.NodeServerConfig server = null;
    try {
      server = io.parityfs.node.net.NodeServerConfig.builder()
          .workerThreads((int) integer("server.workerThreads", 1, 1024))
          .maxRequestsPerConnection((int) integer("server.maxRequestsPerConnection", 1, 65536))
          .maxBytesPerConnection(size("server.maxBytesPerConnection"))
          .maxRequestsPerNode((int) integer("server.maxRequestsPerNode", 1, 1 << 20))
          .maxBytesPerNode(size("server.maxBytesPerNode"))
          .idleTimeout(duration("server.idleTimeout", false))
          .drainTimeout(duration("server.drainTimeout", true))
          .build();
    } catch (IllegalArgumentException e) {
      if (problems.isEmpty()) {
        problem("server.*", e.getMessage());
      }
    }
    boolean clusterManager = bool("cluster.manager.enabled");
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    return new NodeConfig(Path.of(source), name, idFile, listenHost, listenPort, advertise,
        metricsHost, metricsPort, zk, refresh, targets, server, clusterManager);
  }

  private TargetConfig target(String t, CodecBackend nodeCodec) {
    String k = "target." + t + ".";
    List<Path> drives = new ArrayList<>();
    for (String d : list(k + "drives")) {
      drives.add(base == null ? Path.of(d) : base.resolve(d).normalize());
    }
    if (drives.isEmpty()) {
      problem(k + "drives", "must list the target's drive directories, comma separated");
    }
    boolean create = bool(k + "create");
    Optional<ArrayConfig> array = Optional.empty();
    Protection protection = value(k + "geometry", NodeConfigParser::protection, null);
    long cell = size(k + "cellSize");
    long max = size(k + "maxChunkSize");
    int spares = (int) integer(k + "hotSpares", 0, ArrayConfig.MAX_DRIVES);
    if (protection != null && cell > 0 && max > 0) {
      try {
        ArrayConfig c = ArrayConfig.builder().protection(protection)
            .cellSize((int) Math.min(cell, Integer.MAX_VALUE)).maxObjectSize(max)
            .hotSpares(spares).build();
        if (create && drives.size() < c.minDrives()) {
          problem(k + "drives", drives.size() + " drives listed but " + c + " needs "
              + c.minDrives());
        }
        array = create ? Optional.of(c) : Optional.empty();
      } catch (IllegalArgumentException e) {
        problem(k + "geometry/cellSize/maxChunkSize/hotSpares", e.getMessage());
      }
    }
    String codecText = get(k + "codec");
    CodecBackend codec = codecText.isEmpty() ? nodeCodec
        : value(k + "codec", CodecBackend::parse, nodeCodec);
    Duration scrub = duration(k + "scrubInterval", true);
    long idle = rate(k + "rebuild.idleRate");
    long busy = rate(k + "rebuild.busyRate");
    String pool = get(k + "pool");
    if (!Layout.isValidPool(pool)) {
      problem(k + "pool", "value (" + pool + ") must be 1-64 letters, digits, '_', '.' or '-'");
      pool = Layout.DEFAULT_POOL;
    }
    Duration gc = duration(k + "gcInterval", true);
    return new TargetConfig(t, drives, array, codec, scrub, idle, busy, pool, gc);
  }

  // ---- typed values; each records a problem naming the key and returns a harmless value ----

  private void checkUnknownKeys(Set<String> targets) {
    Set<String> known = new TreeSet<>();
    NODE_KEYS.forEach(kv -> known.add(kv[0]));
    for (String t : targets) {
      TARGET_KEYS.forEach(kv -> known.add("target." + t + "." + kv[0]));
    }
    for (String key : new TreeSet<>(props.stringPropertyNames())) {
      if (!known.contains(key)) {
        String hint = key.startsWith("target.") ? " (a target must be listed in 'targets', and"
            + " its keys are " + String.join(", ", TARGET_KEYS.stream().map(kv -> kv[0]).toList())
            + ")" : "";
        problem(key, "unknown key" + hint);
      }
    }
  }

  private String get(String key) {
    String v = props.getProperty(key);
    return v == null ? defaultOf(key) : v.trim();
  }

  private static String defaultOf(String key) {
    for (String[] kv : NODE_KEYS) {
      if (kv[0].equals(key)) {
        return kv[1];
      }
    }
    for (String[] kv : TARGET_KEYS) {
      if (key.startsWith("target.") && key.endsWith("." + kv[0])
          && key.length() > ("target.." + kv[0]).length()
          && key.indexOf('.', "target.".length()) == key.length() - kv[0].length() - 1) {
        return kv[1];
      }
    }
    throw new IllegalStateException("undeclared key " + key);
  }

  private List<String> list(String key) {
    List<String> out = new ArrayList<>();
    for (String s : get(key).split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return out;
  }

  private Path path(String key) {
    String v = get(key);
    if (v.isEmpty()) {
      problem(key, "must be a path");
      return Path.of(".");
    }
    return base == null ? Path.of(v) : base.resolve(v).normalize();
  }

  private int port(String key, boolean allowOff) {
    long p = integer(key, allowOff ? -1 : 0, 65535);
    return (int) p;
  }

  private long integer(String key, long min, long max) {
    String v = get(key);
    try {
      long n = Long.parseLong(v);
      if (n < min || n > max) {
        problem(key, "value (" + v + ") must be in " + min + ".." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      problem(key, "value (" + v + ") must be an integer in " + min + ".." + max);
      return min;
    }
  }

  private boolean bool(String key) {
    String v = get(key).toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      problem(key, "value (" + get(key) + ") must be true or false");
    }
    return v.equals("true");
  }

  /** Bytes: a number with an optional K, M, G or T (powers of 1024), e.g. 64K, 64MiB, 65536. */
  private long size(String key) {
    String v = get(key);
    Matcher m = SIZE.matcher(v);
    if (!m.matches()) {
      problem(key, "value (" + v + ") must be a size like 65536, 64K or 64MiB");
      return -1;
    }
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    try {
      long n = Long.parseLong(m.group(1));
      if (n > (Long.MAX_VALUE >> shift)) {
        throw new NumberFormatException();
      }
      return n << shift;
    } catch (NumberFormatException e) {
      problem(key, "value (" + v + ") is too large");
      return -1;
    }
  }

  /** MB/s (10^6 bytes per second), 0 for unlimited; returned in bytes per second. */
  private long rate(String key) {
    String v = get(key);
    try {
      double mb = Double.parseDouble(v);
      if (mb < 0 || Double.isNaN(mb) || mb > 1e9) {
        throw new NumberFormatException();
      }
      return (long) (mb * 1_000_000);
    } catch (NumberFormatException e) {
      problem(key, "value (" + v + ") must be a rate in MB/s, >= 0 (0: unlimited)");
      return 0;
    }
  }

  /** A duration: a number with ms, s, m, h or d (seconds when bare). */
  private Duration duration(String key, boolean zeroAllowed) {
    String v = get(key);
    Matcher m = DURATION.matcher(v.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      problem(key, "value (" + v + ") must be a duration like 500ms, 30s, 10m, 12h or 7d");
      return Duration.ofSeconds(1);
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    Duration d;
    try {
      long n = Long.parseLong(m.group(1));
      d = switch (unit) {
        case "ms" -> Duration.ofMillis(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        case "d" -> Duration.ofDays(n);
        default -> Duration.ofSeconds(n);
      };
    } catch (NumberFormatException | ArithmeticException e) {
      d = null; // more digits than a long holds, or more seconds than a Duration does
    }
    if (d == null || d.compareTo(MAX_DURATION) > 0) {
      // a bound that every use (toMillis, toNanos of a scheduler) can hold
      problem(key, "value (" + v + ") is too large: at most " + MAX_DURATION.toDays() + "d");
      return Duration.ofSeconds(1);
    }
    if (d.isZero() && !zeroAllowed) {
      problem(key, "value (" + v + ") must be positive");
      return Duration.ofSeconds(1);
    }
    return d;
  }

  private <T> T value(String key, Function<String, T> parser, T fallback) {
    try {
      return parser.apply(get(key));
    } catch (IllegalArgumentException e) {
      problem(key, e.getMessage());
      return fallback;
    }
  }

  /** {@code raid5:K+1}, {@code raid6:K+2}, {@code rs:K+M} or {@code mirror:N}. */
  static Protection protection(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("mirror:")) {
      try {
        return Protection.mirror(Integer.parseInt(t.substring("mirror:".length())));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("geometry (" + text + ") must be mirror:N");
      }
    }
    return Protection.parity(CodecGeometry.parse(t));
  }

  private void problem(String key, String message) {
    problems.add(key + ": " + message);
  }

  private static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.isEmpty();
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
