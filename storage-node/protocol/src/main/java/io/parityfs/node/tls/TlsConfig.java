package io.parityfs.node.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a node's or a client's TLS files are (docs/security.md, "The cluster CA"), or {@link
 * #OFF}: plaintext, for a trusted network only. All PEM: {@code key} a PKCS#8 private key,
 * {@code cert} its certificate (issued by the CA, with its role), {@code ca} the cluster CA's
 * certificate, the only one trusted; {@code crl}, when not null, the CA's revocation list, read
 * again when it changes.
 */
public record TlsConfig(boolean enabled, Path key, Path cert, Path ca, Path crl) {
  /** Plaintext: no authentication, nothing encrypted. */
  public static final TlsConfig OFF = new TlsConfig(false, null, null, null, null);

  public TlsConfig {
    if (enabled) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(cert, "cert");
      Objects.requireNonNull(ca, "ca");
    }
  }

  /** TLS with these files and no revocation list. */
  public static TlsConfig of(Path key, Path cert, Path ca) {
    return new TlsConfig(true, key, cert, ca, null);
  }

  /**
   * TLS with the files {@code parityfs ca issue} writes for {@code name} in {@code dir}: {@code
   * name.key}, {@code name.crt}, the CA's {@code ca.crt} and, when present then or later, its
   * {@code ca.crl}.
   */
  public static TlsConfig inDirectory(Path dir, String name) {
    return new TlsConfig(true, dir.resolve(name + ".key"), dir.resolve(name + ".crt"),
        dir.resolve(CertificateAuthority.CA_CERT), dir.resolve(CertificateAuthority.CA_CRL));
  }

  /** The same files with revocation list {@code v}. */
  public TlsConfig withCrl(Path v) {
    return new TlsConfig(enabled, key, cert, ca, v);
  }

  @Override
  public String toString() {
    return enabled ? "tls(key=" + key + ", cert=" + cert + ", ca=" + ca
        + (crl == null ? "" : ", crl=" + crl) + ")" : "plaintext";
  }
}
