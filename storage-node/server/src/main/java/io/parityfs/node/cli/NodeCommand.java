package io.parityfs.node.cli;

import io.parityfs.node.NodeLogManager;
import io.parityfs.node.NodeServer;
import io.parityfs.node.StorageNode;
import io.parityfs.node.StorageTarget;
import io.parityfs.node.config.ConfigException;
import io.parityfs.node.config.NodeConfig;
import io.parityfs.node.config.NodeConfigParser;
import io.parityfs.node.net.NettyNodeServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code parityfs node start --config <file>}: starts a storage node and runs it until the JVM is
 * asked to stop (SIGTERM, Ctrl-C), then shuts it down gracefully. {@code bin/parityfs node ...}
 * runs {@link #main} (and the local cluster runs it in each node's JVM).
 *
 * <p>The network server is chosen by {@link #serverFactory}: the wire protocol server ({@link
 * NettyNodeServer} with the {@code server.*} settings of the node's configuration).
 */
@Command(name = "node", description = "Run a ParityFS storage node.", mixinStandardHelpOptions = true,
    subcommands = {NodeCommand.Start.class})
public final class NodeCommand {
  /** Makes the network server of a node from its configuration. */
  static volatile Function<NodeConfig, NodeServer> serverFactory =
      c -> new NettyNodeServer(c.server());

  public static void main(String[] args) {
    System.exit(new CommandLine(new NodeCommand()).execute(args));
  }

  /** {@code node start}. */
  @Command(name = "start", description = "Open the node's arrays, register in ZooKeeper and"
      + " serve until stopped.", mixinStandardHelpOptions = true)
  public static final class Start implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "<file>",
        description = "the node's properties file (see conf/storage-node.properties)")
    Path config;

    /** Released to stop a node started by this command (tests); the JVM's shutdown also does. */
    private final CountDownLatch stop = new CountDownLatch(1);

    /** Stops a running {@code start} as SIGTERM would: it closes the node and returns 0. */
    public void requestStop() {
      stop.countDown();
    }

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      NodeConfig c;
      try {
        c = NodeConfigParser.parse(config);
      } catch (ConfigException e) {
        err.println(e.getMessage());
        return 2;
      } catch (IOException e) {
        err.println("cannot read " + config + ": " + e);
        return 2;
      }
      StorageNode node = new StorageNode(c, serverFactory.apply(c));
      try {
        node.start();
      } catch (IOException e) {
        err.println("node did not start: " + e.getMessage());
        return 1;
      }
      Thread hook = new Thread(() -> {
        try {
          node.close();
        } catch (IOException e) {
          System.err.println("closing the node: " + e);
        } finally {
          NodeLogManager.resetAtExit();
        }
      }, "pfs-node-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      out.printf("node %s (%s) listening on %s:%d%n", node.nodeId(), c.name(),
          node.address().getHostString(), node.address().getPort());
      out.printf("metrics and health on %s%n", node.metricsPort() < 0 ? "(off)"
          : (c.metricsAccess().tls() ? "https://" : "http://") + c.metricsHost() + ":"
              + node.metricsPort() + "/metrics, /health" + (c.metricsAccess().basicAuth()
              .isEmpty() ? "" : " (basic auth as " + c.metricsAccess().user() + ")"));
      out.printf("zookeeper %s%s%n", c.zooKeeper().connect(), c.zooKeeper().chroot());
      for (StorageTarget t : node.targets()) {
        out.printf("target %s %s %s %s, codec %s, drives %s%n", t.name(), t.id(),
            t.protection(), t.state(), t.codec().map(s -> s.chosen().label() + " "
                + s.implementation()).orElse("none"), t.config().drives());
      }
      out.flush();
      stop.await();
      Runtime.getRuntime().removeShutdownHook(hook);
      node.close();
      return 0;
    }
  }
}
