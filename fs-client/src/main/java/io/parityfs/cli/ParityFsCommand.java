package io.parityfs.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code parityfs}: the top command. Holds the global options (inherited by every subcommand, so
 * they may come before or after its name) and the output streams of this run; each subcommand
 * opens a {@link Session} from them.
 */
@Command(name = "parityfs", mixinStandardHelpOptions = true,
    versionProvider = ParityFsCommand.Version.class,
    description = "ParityFS command line: namespace commands and cluster administration.",
    subcommands = {
        NamespaceCommands.Ls.class, NamespaceCommands.Stat.class, DataCommands.Put.class,
        DataCommands.Get.class, DataCommands.Cat.class, NamespaceCommands.Mkdir.class,
        NamespaceCommands.Rm.class, NamespaceCommands.Mv.class, NamespaceCommands.Du.class,
        NamespaceCommands.Ln.class, NamespaceCommands.ReadLink.class,
        ClusterCommands.Df.class, StripeCommands.SetStripe.class, StripeCommands.GetStripe.class,
        ClusterCommands.Nodes.class, ClusterCommands.Targets.class, DriveCommands.Drives.class,
        DriveCommands.FailDrive.class, DriveCommands.ReplaceDrive.class,
        DriveCommands.Rebuild.class, DriveCommands.Scrub.class, LeaseCommands.RecoverLease.class,
        RepairCommand.class, FsckCommand.class, ReprotectCommand.class, MoveCommands.Node.class,
        MoveCommands.Keeper.class, RebalanceCommand.class,
        CaCommands.Ca.class, BenchCommands.Bench.class, MountCommands.Mount.class, MountCommands.Umount.class,
        FormatCommand.class, ZkAclCommand.class},
    footer = {"", "Paths are namespace paths (/a/b). Errors go to stderr as one line:",
        "  parityfs: <command>: <path or target>: <STATUS>: <message>",
        "See docs/cli.md for every command, its output and --json."})
final class ParityFsCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--zookeeper", scope = ScopeType.INHERIT, paramLabel = "<host:port,..>",
      defaultValue = "${env:PARITYFS_ZOOKEEPER:-localhost:2181}",
      description = "the cluster's ZooKeeper ensemble (env PARITYFS_ZOOKEEPER; default"
          + " ${DEFAULT-VALUE})")
  String zooKeeper;

  @Option(names = "--chroot", scope = ScopeType.INHERIT, paramLabel = "<znode>",
      defaultValue = "${env:PARITYFS_CHROOT:-}",
      description = "the cluster's ZooKeeper chroot, e.g. /prod (env PARITYFS_CHROOT)")
  String chroot;

  @Option(names = "--digest-file", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_DIGEST_FILE}",
      description = "a file holding the ZooKeeper digest user:password (env"
          + " PARITYFS_DIGEST_FILE)")
  Path digestFile;

  @Option(names = "--zk-tls-truststore", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_ZK_TLS_TRUSTSTORE}",
      description = "TLS to ZooKeeper: the CA certificate its servers' certificates chain to,"
          + " PEM (env PARITYFS_ZK_TLS_TRUSTSTORE; default plaintext)")
  Path zkTlsTrustStore;

  @Option(names = "--zk-tls-keystore", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_ZK_TLS_KEYSTORE}",
      description = "the key and certificate shown to ZooKeeper in one PEM file, as `ca issue`"
          + " writes NAME.pem (env PARITYFS_ZK_TLS_KEYSTORE)")
  Path zkTlsKeyStore;

  @Option(names = "--user", scope = ScopeType.INHERIT, paramLabel = "<name>",
      defaultValue = "${sys:user.name}",
      description = "act as this user (default: the OS user, ${DEFAULT-VALUE})")
  String user;

  @Option(names = "--groups", scope = ScopeType.INHERIT, split = ",", paramLabel = "<group>",
      description = "the user's groups, the first its primary group (default: the OS groups of"
          + " the user from `id -Gn`, or none)")
  List<String> groups;

  @Option(names = "--umask", scope = ScopeType.INHERIT, paramLabel = "<octal>",
      defaultValue = "022", description = "umask of what is created (default ${DEFAULT-VALUE})")
  String umask;

  @Option(names = "--connect-timeout", scope = ScopeType.INHERIT, paramLabel = "<seconds>",
      defaultValue = "15",
      description = "how long to wait for ZooKeeper (default ${DEFAULT-VALUE} s)")
  double connectTimeoutSeconds;

  @Option(names = "--session-timeout", scope = ScopeType.INHERIT, paramLabel = "<seconds>",
      defaultValue = "${env:PARITYFS_SESSION_TIMEOUT:-30}",
      description = "the ZooKeeper session asked for: how long a killed command's write leases"
          + " and mover locks outlast it (env PARITYFS_SESSION_TIMEOUT; default ${DEFAULT-VALUE}"
          + " s)")
  double sessionTimeoutSeconds;

  @Option(names = "--tls-key", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_TLS_KEY}",
      description = "TLS to the storage nodes: this client's key, PEM (env PARITYFS_TLS_KEY;"
          + " with --tls-cert and --tls-ca; docs/security.md)")
  Path tlsKey;

  @Option(names = "--tls-cert", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_TLS_CERT}",
      description = "this client's certificate, PEM: role client, or admin for the drive"
          + " commands (env PARITYFS_TLS_CERT)")
  Path tlsCert;

  @Option(names = "--tls-ca", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_TLS_CA}",
      description = "the cluster CA's certificate, PEM (env PARITYFS_TLS_CA)")
  Path tlsCa;

  @Option(names = "--tls-crl", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_TLS_CRL}",
      description = "the CA's revocation list, PEM, optional (env PARITYFS_TLS_CRL)")
  Path tlsCrl;

  @Option(names = "--core-site", scope = ScopeType.INHERIT, paramLabel = "<file>",
      defaultValue = "${env:PARITYFS_CORE_SITE}",
      description = "a Hadoop core-site.xml (as `local start` prints, or Spark's) to take the"
          + " cluster from where no option or environment variable names it: its ZooKeeper,"
          + " chroot, digest file and TLS files (env PARITYFS_CORE_SITE)")
  Path coreSite;

  @Option(names = "--json", scope = ScopeType.INHERIT,
      description = "machine-readable output: one JSON document per line")
  boolean json;

  private final InputStream in;
  /** Raw standard output (cat), beside the command line's writer. */
  private final OutputStream rawOut;
  private final boolean terminal;

  ParityFsCommand(InputStream in, OutputStream rawOut, boolean terminal) {
    this.in = in;
    this.rawOut = rawOut;
    this.terminal = terminal;
  }

  /** A session for a subcommand of this run; the caller closes it. */
  Session open(CommandLine sub) {
    return new Session(this, in, sub.getOut(), sub.getErr(), rawOut, terminal);
  }

  /**
   * Fills what {@code --core-site} gives ({@link CoreSite}) into the options no option and no
   * environment variable set: the ensemble, chroot, digest file, and the nodes' and ZooKeeper's
   * TLS files (all of them together, or none of them, so a half-given TLS stays an error).
   */
  void applyCoreSite() throws CliException {
    if (coreSite == null || coreSite.toString().isEmpty()) {
      return;
    }
    CoreSite site = CoreSite.read(coreSite);
    if (!given("--zookeeper", "PARITYFS_ZOOKEEPER") && site.zooKeeper() != null) {
      zooKeeper = site.zooKeeper();
    }
    if ((chroot == null || chroot.isEmpty()) && site.chroot() != null) {
      chroot = site.chroot();
    }
    if (digestFile == null) {
      digestFile = site.digestFile();
    }
    if (tlsKey == null && tlsCert == null && tlsCa == null) {
      tlsKey = site.tls("key");
      tlsCert = site.tls("cert");
      tlsCa = site.tls("ca");
      tlsCrl = tlsCrl != null ? tlsCrl : site.tls("crl");
    }
    if (zkTlsTrustStore == null && zkTlsKeyStore == null) {
      zkTlsTrustStore = site.zooKeeperTls("truststore");
      zkTlsKeyStore = site.zooKeeperTls("keystore");
    }
  }

  /** Whether {@code option} was typed on this command line or {@code env} is set. */
  private boolean given(String option, String env) {
    if (System.getenv(env) != null) {
      return true;
    }
    for (CommandLine.ParseResult r = spec.commandLine().getParseResult(); r != null;
        r = r.subcommand()) {
      if (r.hasMatchedOption(option)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitStatus.USAGE.code();
  }

  /** The version of the jar, "dev" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ParityFsCommand.class.getPackage().getImplementationVersion();
      return new String[] {"parityfs " + (v == null ? "dev" : v)};
    }
  }
}
