package io.parityfs.cli;

import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code parityfs ca init|issue|revoke}: the cluster CA (docs/security.md, "The cluster CA").
 * Local files only; no cluster is contacted.
 */
final class CaCommands {
  private CaCommands() {}

  @Command(name = "ca", description = "The cluster CA: make it, issue the certificates of"
      + " nodes, clients and admins, revoke them (docs/security.md).",
      mixinStandardHelpOptions = true, subcommands = {Init.class, Issue.class, Revoke.class})
  static final class Ca implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().usage(spec.commandLine().getErr());
      return ExitStatus.USAGE.code();
    }
  }

  /** The CA's folder option of every subcommand. */
  static class CaDir {
    @Option(names = "--dir", required = true, paramLabel = "<dir>",
        description = "the CA's folder (ca.key, mode 0600, and ca.crt)")
    Path dir;
  }

  @Command(name = "init", description = {"Make a new CA (EC P-256, ten years) in --dir. An"
      + " existing CA is never overwritten (exit 7).",
      "Keep ca.key offline or on one admin host: whoever holds it can issue admin"
      + " certificates."})
  static final class Init extends CliCommand {
    @CommandLine.Mixin
    CaDir ca;

    @Option(names = "--cluster", defaultValue = "parityfs", paramLabel = "<name>",
        description = "the cluster's name in the CA's subject (default ${DEFAULT-VALUE})")
    String cluster;

    @Override
    void run(Session s) throws CliException, IOException {
      CertificateAuthority a;
      try {
        a = CertificateAuthority.init(ca.dir, cluster);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        throw new CliException(ExitStatus.CONFLICT, ca.dir.toString(), "ALREADY_EXISTS: "
            + e.getReason());
      }
      print(s, "ca", ca.dir.resolve(CertificateAuthority.CA_KEY),
          ca.dir.resolve(CertificateAuthority.CA_CERT), null, a.certificate());
    }
  }

  @Command(name = "issue", description = {"Issue a key and a certificate signed by the CA:"
      + " NAME.key (0600) and NAME.crt in --out (default: the CA's folder), with ca.crt beside"
      + " them.",
      "--role node also needs --host: the names and addresses clients reach the node by (its"
      + " node.advertise.host), which they check."})
  static final class Issue extends CliCommand {
    @CommandLine.Mixin
    CaDir ca;

    @Option(names = "--role", required = true, paramLabel = "<role>",
        description = "client, node or admin")
    String role;

    @Option(names = "--name", required = true, paramLabel = "<name>",
        description = "the holder's name (CN; a node's name is also one of its DNS names)")
    String name;

    @Option(names = "--host", split = ",", paramLabel = "<host>",
        description = "DNS names and IP addresses of a node, comma separated")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--days", defaultValue = "365", paramLabel = "<n>",
        description = "validity in days (default ${DEFAULT-VALUE})")
    int days;

    @Option(names = "--out", paramLabel = "<dir>",
        description = "where to write the files (default: the CA's folder)")
    Path out;

    @Override
    void run(Session s) throws CliException, IOException {
      TlsRole r = TlsRole.parse(role);
      if (days < 1) {
        throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: --days must be >= 1");
      }
      CertificateAuthority a = CertificateAuthority.open(ca.dir);
      CertificateAuthority.Issued i = a.issue(r, name, Duration.ofDays(days), hosts,
          out == null ? ca.dir : out);
      print(s, r.label(), i.key(), i.cert(), i.pem(), i.certificate());
    }
  }

  @Command(name = "revoke", description = {"Revoke certificates of the CA: ca.crl in the CA's"
      + " folder is written again with them. Copy it to every node's security.tls.crl (and"
      + " clients' fs.pfs.tls.crl): they read it again when it changes; new connections with a"
      + " revoked certificate are refused, open ones stay until they close."})
  static final class Revoke extends CliCommand {
    @CommandLine.Mixin
    CaDir ca;

    @Parameters(paramLabel = "CERT", arity = "1..*", description = "certificate files (PEM)")
    List<Path> certs;

    @Override
    void run(Session s) throws CliException, IOException {
      CertificateAuthority a = CertificateAuthority.open(ca.dir);
      for (Path p : certs) {
        each(s, p.toString(), () -> {
          List<X509Certificate> c = TlsContext.readCertificates(p);
          if (c.isEmpty()) {
            throw new CliException(ExitStatus.USAGE, p.toString(), "INVALID_ARGUMENT: no"
                + " certificate in it");
          }
          Path crl = a.revoke(c.get(0));
          if (s.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("revoked", c.get(0).getSubjectX500Principal().getName());
            m.put("serial", c.get(0).getSerialNumber().toString(16));
            m.put("crl", crl.toString());
            s.printJson(m);
          } else {
            s.out().println("revoked " + c.get(0).getSubjectX500Principal().getName()
                + " (serial " + c.get(0).getSerialNumber().toString(16) + "): " + crl);
          }
        });
      }
    }
  }

  /** One line (or JSON document) per file set; {@code pem} is null for the CA's own. */
  private static void print(Session s, String what, Path key, Path cert, Path pem,
      X509Certificate c) {
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("role", what);
      m.put("subject", c.getSubjectX500Principal().getName());
      m.put("key", key.toString());
      m.put("cert", cert.toString());
      if (pem != null) {
        m.put("pem", pem.toString());
      }
      m.put("notAfter", c.getNotAfter().toInstant().toString());
      s.printJson(m);
    } else {
      s.out().println(what + " " + c.getSubjectX500Principal().getName() + ": key " + key
          + " (0600), certificate " + cert + ", valid until " + c.getNotAfter().toInstant()
          + (pem == null ? "" : "; both in " + pem + " (0600, ZooKeeper's TLS key store)"));
    }
  }
}
