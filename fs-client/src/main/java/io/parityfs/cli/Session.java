package io.parityfs.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.ZkRoles;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.tls.TlsConfig;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One command's run: its output streams, whether stdout is a terminal, {@code --json}, and the
 * cluster connection (a {@link ParityClient}, connected on first use, closed with the session).
 * Not thread-safe: one command, one thread.
 */
final class Session implements Closeable {
  private final ParityFsCommand options;
  private final InputStream in;
  private final PrintWriter out;
  private final PrintWriter err;
  private final OutputStream rawOut;
  private final boolean terminal;
  private ParityClient client;

  Session(ParityFsCommand options, InputStream in, PrintWriter out, PrintWriter err,
      OutputStream rawOut, boolean terminal) {
    this.options = options;
    this.in = in;
    this.out = out;
    this.err = err;
    this.rawOut = rawOut;
    this.terminal = terminal;
  }

  /** Standard input (put -). */
  InputStream in() {
    return in;
  }

  PrintWriter out() {
    return out;
  }

  PrintWriter err() {
    return err;
  }

  /** Standard output as bytes (flush {@link #out()} first). */
  OutputStream rawOut() {
    out.flush();
    return rawOut;
  }

  /** Whether standard output is a terminal (progress bars, live lines). */
  boolean terminal() {
    return terminal;
  }

  boolean json() {
    return options.json;
  }

  /** Prints {@code value} as one line of JSON. */
  void printJson(Object value) {
    try {
      out.println(Json.MAPPER.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON of " + value.getClass(), e);
    }
    out.flush();
  }

  /** The cluster, connected on first call. */
  ParityClient client() throws CliException {
    if (client == null) {
      client = connect(caller());
    }
    return client;
  }

  /**
   * A new client of the cluster for {@code caller}, with every credential this command was
   * given (ZooKeeper's digest and TLS, the storage nodes' TLS): what {@link #client()} and the
   * mount use. The caller closes it.
   */
  ParityClient connect(Caller caller) throws CliException {
    ZooKeeperSettings zk = zooKeeper();
    ClientConfig config = ClientConfig.builder(zk)
        .nodes(NodeClientConfig.DEFAULT.toBuilder().tls(tls()).build()).build();
    try {
      return ParityClient.connect(config, caller);
    } catch (IOException e) {
      throw connectFailure(zk, e);
    }
  }

  /** A failure to reach the cluster as the CLI reports it: UNAVAILABLE unless more precise. */
  static CliException connectFailure(ZooKeeperSettings zk, IOException e) {
    CliException c = CliException.of(zk.connect(), e);
    if (c.status() == ExitStatus.FAILED) { // "cannot reach ZooKeeper at ..."
      c = new CliException(ExitStatus.UNAVAILABLE, zk.connect(), "UNAVAILABLE: "
          + e.getMessage());
    }
    return c;
  }

  /** The storage-node TLS of {@code --tls-key/--tls-cert/--tls-ca}: all three, or none (off). */
  TlsConfig tls() throws CliException {
    Path key = given(options.tlsKey);
    Path cert = given(options.tlsCert);
    Path ca = given(options.tlsCa);
    if (key == null && cert == null && ca == null) {
      return TlsConfig.OFF;
    }
    if (key == null || cert == null || ca == null) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: TLS needs all of"
          + " --tls-key, --tls-cert and --tls-ca (or PARITYFS_TLS_KEY, _CERT, _CA)");
    }
    return new TlsConfig(true, key, cert, ca, given(options.tlsCrl));
  }

  /** Null for an option left out or given empty (an exported {@code PARITYFS_TLS_CRL=}). */
  private static Path given(Path p) {
    return p == null || p.toString().isEmpty() ? null : p;
  }

  ZooKeeperSettings zooKeeper() throws CliException {
    String digest = "";
    ZkRoles roles = null;
    if (options.digestFile != null) {
      try {
        digest = ZooKeeperSettings.readDigestFile(options.digestFile);
        roles = ZkRoles.read(options.digestFile);
      } catch (IOException e) {
        throw CliException.of(options.digestFile.toString(), e);
      }
    }
    long millis = Math.round(options.connectTimeoutSeconds * 1000);
    if (options.zkTlsKeyStore != null && options.zkTlsTrustStore == null) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: --zk-tls-keystore needs"
          + " --zk-tls-truststore (the CA certificate ZooKeeper's certificate chains to)");
    }
    ZooKeeperTls tls = options.zkTlsTrustStore == null ? null
        : new ZooKeeperTls(options.zkTlsTrustStore, options.zkTlsKeyStore);
    try {
      return new ZooKeeperSettings(options.zooKeeper, options.chroot == null ? ""
          : options.chroot, Duration.ofMillis(Math.round(options.sessionTimeoutSeconds * 1000)),
          Duration.ofMillis(Math.max(100, millis)), digest, tls, roles);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: " + e.getMessage());
    }
  }

  Caller caller() throws CliException {
    int umask;
    try {
      umask = Integer.parseInt(options.umask, 8);
    } catch (NumberFormatException e) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: --umask ("
          + options.umask + ") must be octal, e.g. 022");
    }
    List<String> groups = options.groups != null ? options.groups : osGroups(options.user);
    try {
      return new Caller(options.user, groups, umask);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: " + e.getMessage());
    }
  }

  /** The groups `id -Gn user` prints (the primary group first), or none when it cannot. */
  static List<String> osGroups(String user) {
    try {
      Process p = new ProcessBuilder("id", "-Gn", user).redirectErrorStream(false).start();
      p.getOutputStream().close();
      byte[] bytes;
      try (InputStream in = p.getInputStream()) {
        bytes = in.readAllBytes();
      }
      if (!p.waitFor(2, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroy();
        return List.of();
      }
      String text = new String(bytes, StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? List.of()
          : new ArrayList<>(Arrays.asList(text.split("\\s+")));
    } catch (IOException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  @Override
  public void close() {
    out.flush();
    err.flush();
    if (client != null) {
      client.close();
    }
  }
}
