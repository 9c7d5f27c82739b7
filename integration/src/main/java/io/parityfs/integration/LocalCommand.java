package io.parityfs.integration;

import io.parityfs.cli.ExitStatus;
import io.parityfs.cli.Main;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.targets.TargetInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code parityfs local start|stop|status [--dir D]}: a {@link LocalCluster} kept in a folder
 * ({@code ./.parityfs} by default), for trying ParityFS on one machine.
 */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = {"A ParityFS cluster on this machine: ZooKeeper and storage nodes as"
        + " background processes, their data and logs in one folder. It survives restarts.",
        "A new cluster has 3 storage nodes, each one RAID-6 4+2 target over 6 drive folders,"
            + " and its files are protected ec:2+1 across the nodes (--nodes 5: ec:4+1).",
        "Every connection to a node is mutual TLS with certificates of the cluster's own CA"
            + " (in its folder's tls/), and ZooKeeper's znodes are readable with the cluster's"
            + " digest only; `eval \"$(parityfs local env)\"` points the CLI at it."},
    subcommands = {LocalCommand.Start.class, LocalCommand.Stop.class,
        LocalCommand.Status.class, LocalCommand.Env.class})
public final class LocalCommand {
  @Option(names = "--dir", scope = ScopeType.INHERIT, paramLabel = "<folder>",
      defaultValue = "${env:PARITYFS_LOCAL_DIR:-.parityfs}",
      description = "the cluster's folder (env PARITYFS_LOCAL_DIR; default ${DEFAULT-VALUE})")
  Path dir;

  /** {@code local start}. */
  @Command(name = "start", mixinStandardHelpOptions = true,
      description = "Create the cluster if the folder has none, start what is not running, wait"
          + " until every target is online, and print how to reach it.")
  static final class Start implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "<n>", defaultValue = "3",
        description = "storage nodes of a new cluster (default ${DEFAULT-VALUE}); its root's"
            + " protection across nodes follows: ec:(n-1)+1 with 3 or 4, ec:4+1 from 5, mirror:2"
            + " with 2, none with 1")
    int nodes;

    @Option(names = "--drives", paramLabel = "<n>", defaultValue = "6",
        description = "drive folders per node of a new cluster (default ${DEFAULT-VALUE})")
    int drives;

    @Option(names = "--geometry", paramLabel = "<g>", defaultValue = "raid6:4+2",
        description = "each node's RAID geometry in a new cluster: raid5:K+1, raid6:K+2, rs:K+M"
            + " (default ${DEFAULT-VALUE})")
    String geometry;

    @Option(names = "--timeout", paramLabel = "<seconds>", defaultValue = "180",
        description = "how long to wait for every target to come online (default"
            + " ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--plaintext", description = "a new cluster without security: no TLS (its"
        + " nodes serve anyone who reaches their loopback ports) and no ZooKeeper digest (open"
        + " ACLs); an existing cluster keeps what it was created with")
    boolean plaintext;

    @Option(names = "--zookeeper-port", paramLabel = "<port>", defaultValue = "0",
        description = "the ZooKeeper port of a new cluster, on 127.0.0.1 (default: 2181 when"
            + " free, else a free one), so that two local clusters can run on one machine; an"
            + " existing cluster keeps its own")
    int zooKeeperPort;

    @Option(names = "--zookeeper-tls", description = "a new cluster whose ZooKeeper takes TLS"
        + " only (ZooKeeper's client TLS with client certificates of the cluster CA; every"
        + " process connects with its certificate's NAME.pem); not with --plaintext")
    boolean zooKeeperTls;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        if (plaintext && zooKeeperTls) {
          throw new IllegalArgumentException("--zookeeper-tls needs a secure cluster: drop"
              + " --plaintext");
        }
        if (zooKeeperPort < 0 || zooKeeperPort > 65535) {
          throw new IllegalArgumentException("--zookeeper-port (" + zooKeeperPort + ") must be"
              + " 1..65535");
        }
        LocalCluster c = startCluster(parent.dir, new LocalCluster.Shape(nodes, drives, geometry,
            zooKeeperPort, "2g").withSecure(!plaintext).withZooKeeperTls(zooKeeperTls),
            Duration.ofSeconds(timeoutSeconds), out);
        printReach(c, out);
        return ExitStatus.OK.code();
      } catch (IllegalArgumentException e) {
        return Main.fail(spec, ExitStatus.USAGE, e.getMessage());
      } catch (IOException e) {
        return Main.fail(spec, ExitStatus.UNAVAILABLE, e.getMessage());
      }
    }
  }

  /** {@code local stop}. */
  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the cluster's processes (storage nodes, then ZooKeeper); its data"
          + " stays for the next start.")
  static final class Stop implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--timeout", paramLabel = "<seconds>", defaultValue = "30",
        description = "how long a process may take to stop before it is killed (default"
            + " ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        LocalCluster c = LocalCluster.open(parent.dir);
        c.stop(Duration.ofSeconds(timeoutSeconds), out::println);
        out.println("stopped the local cluster in " + c.dir() + " (its data stays; parityfs"
            + " local start brings it back)");
        return ExitStatus.OK.code();
      } catch (IOException e) {
        return Main.fail(spec, ExitStatus.NOT_FOUND, e.getMessage());
      }
    }
  }

  /** {@code local status}. */
  @Command(name = "status", mixinStandardHelpOptions = true,
      description = {"Show the cluster's processes and, while ZooKeeper runs, its targets.",
          "Exits 0 when every process runs, 6 when some or all are stopped, 3 when the folder"
              + " holds no cluster."})
  static final class Status extends OnCluster {
    @Override
    int run(LocalCluster c, PrintWriter out) {
      LocalCluster.Shape s = c.shape();
      out.printf(Locale.ROOT, "local cluster %s: %d nodes x %d drives, %s, ZooKeeper %s, %s%n",
          c.dir(), s.nodes(), s.drives(), s.geometry(), c.connectString(), transport(c));
      List<LocalCluster.ProcessState> ps = c.processes();
      out.printf(Locale.ROOT, "%-10s %-8s %-8s %s%n", "PROCESS", "STATE", "PID", "LOG");
      for (LocalCluster.ProcessState p : ps) {
        out.printf(Locale.ROOT, "%-10s %-8s %-8s %s%n", p.name(),
            p.running() ? "running" : "stopped", p.running() ? Long.toString(p.pid()) : "-",
            p.log());
      }
      if (c.zooKeeperProcess().running()) {
        try {
          printTargets(c, out);
        } catch (IOException e) {
          out.println("targets: cannot read the registry: " + e.getMessage());
        }
      }
      boolean all = ps.stream().allMatch(LocalCluster.ProcessState::running);
      return all ? ExitStatus.OK.code() : ExitStatus.UNAVAILABLE.code();
    }
  }

  /** {@code local env}. */
  @Command(name = "env", mixinStandardHelpOptions = true,
      description = {"Print the shell lines that point parityfs at the cluster: its ZooKeeper"
          + " and, when secure, its digest (PARITYFS_DIGEST_FILE) and the admin certificate"
          + " (PARITYFS_TLS_*).",
          "Use: eval \"$(parityfs local env)\""})
  static final class Env extends OnCluster {
    @Override
    int run(LocalCluster c, PrintWriter out) {
      c.cliEnvironment().forEach((k, v) -> out.println("export " + k + "=" + shellQuote(v)));
      out.flush();
      return ExitStatus.OK.code();
    }
  }

  /** A subcommand of a cluster that exists: exit 3 (NOT_FOUND) when the folder holds none. */
  abstract static class OnCluster implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() {
      LocalCluster c;
      try {
        c = LocalCluster.open(parent.dir);
      } catch (IOException e) {
        return Main.fail(spec, ExitStatus.NOT_FOUND, e.getMessage());
      }
      return run(c, spec.commandLine().getOut());
    }

    abstract int run(LocalCluster c, PrintWriter out);
  }

  /** {@code v} as one shell word. */
  static String shellQuote(String v) {
    return v.matches("[A-Za-z0-9_./:,@=+-]+") ? v : "'" + v.replace("'", "'\\''") + "'";
  }

  private static String transport(LocalCluster c) {
    return c.shape().secure() ? "mutual TLS (certificates in " + c.dir().resolve(
        ClusterLayout.TLS_DIR) + "), ZooKeeper digest " + c.dir().resolve(
        ClusterLayout.DIGEST_FILE) + (Files.exists(c.dir().resolve(
        ClusterLayout.CLIENT_DIGEST_FILE)) ? " (clients': " + ClusterLayout.CLIENT_DIGEST_FILE
        + ", the registry read-only)" : "") + (c.shape().zooKeeperTls() ? ", TLS to ZooKeeper"
        : "")
        : "plaintext, open ZooKeeper ACLs";
  }

  /** Creates (if needed) and starts the cluster in {@code dir}, narrating to {@code out}. */
  static LocalCluster startCluster(Path dir, LocalCluster.Shape shape, Duration timeout,
      PrintWriter out) throws IOException {
    boolean created = !LocalCluster.exists(dir);
    LocalCluster c = LocalCluster.createOrOpen(dir, shape);
    LocalCluster.Shape s = c.shape();
    out.printf(Locale.ROOT, "%s local cluster in %s: %d storage nodes, each one %s target over"
            + " %d drive folders, %s%n", created ? "created a" : "the", c.dir(), s.nodes(),
        s.geometry(), s.drives(), transport(c));
    out.flush();
    long t0 = System.nanoTime();
    c.start(timeout, m -> {
      out.println("  " + m);
      out.flush();
    });
    out.printf(Locale.ROOT, "cluster up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    return c;
  }

  /** How to reach the cluster: the CLI, Hadoop, status and stop. */
  static void printReach(LocalCluster c, PrintWriter out) throws IOException {
    printTargets(c, out);
    boolean defaultPort = c.shape().zooKeeperPort() == LocalCluster.DEFAULT_ZOOKEEPER_PORT;
    String dirOpt = c.dir().equals(Path.of(".parityfs").toAbsolutePath().normalize())
        ? "" : " --dir " + c.dir();
    out.println();
    out.println("Reach it:");
    if (c.shape().secure()) {
      out.println("  eval \"$(bin/parityfs local env" + dirOpt + ")\"   # the CLI's ZooKeeper,"
          + " digest and admin certificate (PARITYFS_ZOOKEEPER, _DIGEST_FILE, _TLS_*"
          + (c.shape().zooKeeperTls() ? ", _ZK_TLS_*" : "") + ")");
    } else if (!defaultPort) {
      out.println("  export PARITYFS_ZOOKEEPER=" + c.connectString()
          + "     # this cluster's ZooKeeper (2181 was taken)");
    }
    out.println("  bin/parityfs ls /                 # the CLI: ls, put, get, df, targets, drives"
        + " (docs/cli.md)");
    out.println("  bin/parityfs bench checkpoint     # parallel writers, then a verified restore");
    out.println("  hadoop fs -ls pfs://local/        # Hadoop: put"
        + " fs-client/target/parityfs-fs-client-*-hadoop.jar on its class path, and in"
        + " core-site.xml:");
    c.hadoopProperties("local").forEach((k, v) -> out.println("      <property><name>" + k
        + "</name><value>" + v + "</value></property>"));
    out.println("  bin/parityfs local status" + dirOpt + "    # processes and targets; logs in "
        + c.dir().resolve("logs"));
    out.println("  bin/parityfs local stop" + dirOpt + "      # stops it; start brings it back"
        + " with its data");
    out.flush();
  }

  static void printTargets(LocalCluster c, PrintWriter out) throws IOException {
    try (ParityClient client = c.client(Caller.of("root"))) {
      List<TargetInfo> targets = client.registry().targets();
      out.printf(Locale.ROOT, "%-36s %-10s %-14s %-16s %-11s %s%n", "TARGET", "PROTECTION",
          "REACHABILITY", "CONSISTENCY", "FREE", "NODE");
      for (TargetInfo t : targets) {
        out.printf(Locale.ROOT, "%-36s %-10s %-14s %-16s %-11s %s%n", t.id(), t.protection(),
            t.reachability(), t.consistency(), String.format(Locale.ROOT, "%.1f GiB",
                t.freeBytes() / (double) (1L << 30)), t.nodeId());
      }
      out.flush();
    }
  }
}
