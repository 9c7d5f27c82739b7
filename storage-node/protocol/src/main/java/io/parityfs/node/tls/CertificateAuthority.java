package io.parityfs.node.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The cluster CA (docs/security.md, "The cluster CA"): one directory holding the CA's key
 * ({@value #CA_KEY}, mode 0600) and certificate ({@value #CA_CERT}), and what it issued. Keys are
 * EC P-256, signatures ECDSA with SHA-256; everything is PEM. A certificate carries its {@link
 * TlsRole} as a SAN URI, its name as the CN, and (for nodes, and any name that is a host name or
 * an address) DNS or IP SANs that clients check the node's address against. Revocation writes
 * {@value #CA_CRL}, which nodes and clients read again when it changes. Not thread-safe: one
 * admin command at a time per directory.
 */
public final class CertificateAuthority {
  public static final String CA_KEY = "ca.key";
  public static final String CA_CERT = "ca.crt";
  public static final String CA_CRL = "ca.crl";
  /**
   * How long before its issue a certificate (the CA's too) is valid from: a day, so that a node
   * or client whose clock lags by hours (a skewed clock, ParityFS's skewed-clock test) still
   * accepts it; its expiry counts from the issue.
   */
  public static final Duration BACKDATE = Duration.ofDays(1);
  /** The CA's own validity (ten years). */
  public static final Duration CA_VALIDITY = Duration.ofDays(3650);
  /** An issued certificate's validity unless told otherwise (one year). */
  public static final int DEFAULT_DAYS = 365;
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Set<PosixFilePermission> PRIVATE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> PUBLIC =
      PosixFilePermissions.fromString("rw-r--r--");

  private final Path dir;
  private final PrivateKey key;
  private final X509Certificate cert;

  private CertificateAuthority(Path dir, PrivateKey key, X509Certificate cert) {
    this.dir = dir;
    this.key = key;
    this.cert = cert;
  }

  /**
   * Makes a new CA in {@code dir} (created if need be), named {@code cluster} in its subject.
   *
   * @throws FileAlreadyExistsException when {@code dir} holds a CA already (never overwritten)
   */
  public static CertificateAuthority init(Path dir, String cluster) throws IOException {
    checkName(cluster);
    Files.createDirectories(dir);
    if (Files.exists(dir.resolve(CA_KEY)) || Files.exists(dir.resolve(CA_CERT))) {
      throw new FileAlreadyExistsException(dir.resolve(CA_KEY).toString(), null,
          "a CA is there already; it is never overwritten");
    }
    try {
      KeyPair pair = newKeyPair();
      Instant now = Instant.now();
      X500Principal subject = new X500Principal("CN=" + cluster + " ParityFS CA,O=ParityFS");
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(),
          Date.from(now.minus(BACKDATE)), Date.from(now.plus(CA_VALIDITY)), subject,
          pair.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign
              | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(pair.getPublic()));
      X509Certificate c = new JcaX509CertificateConverter().getCertificate(
          b.build(signer(pair.getPrivate())));
      writePem(dir.resolve(CA_KEY), "PRIVATE KEY", pair.getPrivate().getEncoded(), PRIVATE);
      writePem(dir.resolve(CA_CERT), "CERTIFICATE", c.getEncoded(), PUBLIC);
      return new CertificateAuthority(dir, pair.getPrivate(), c);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot make a CA in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The CA in {@code dir}, made by {@link #init}. */
  public static CertificateAuthority open(Path dir) throws IOException {
    Path k = dir.resolve(CA_KEY);
    Path c = dir.resolve(CA_CERT);
    if (!Files.exists(k) || !Files.exists(c)) {
      throw new NoSuchFileException(k.toString(), null, "no CA there (parityfs ca init makes"
          + " one)");
    }
    List<X509Certificate> certs = TlsContext.readCertificates(c);
    if (certs.isEmpty()) {
      throw new IOException(c + ": no certificate in it");
    }
    return new CertificateAuthority(dir, readKey(k), certs.get(0));
  }

  public Path directory() {
    return dir;
  }

  public X509Certificate certificate() {
    return cert;
  }

  /**
   * What {@link #issue} wrote: the key, the certificate, and both in one file ({@code pem}, for
   * ZooKeeper's PEM key store, which reads the key and its certificate from one file).
   */
  public record Issued(Path key, Path cert, Path pem, X509Certificate certificate) {}

  /**
   * Issues a key and certificate for {@code name} in role {@code role}, valid from now for
   * {@code validity}, written to {@code out} as {@code name.key} (0600), {@code name.crt}
   * (0644) and {@code name.pem} (both, 0600), with a copy of the CA's certificate beside them when {@code out} is another
   * directory. {@code hosts} are the DNS names and addresses a node answers on (clients check
   * them); {@code name} is one of them when it looks like a host name.
   */
  public Issued issue(TlsRole role, String name, Duration validity, List<String> hosts, Path out)
      throws IOException {
    checkName(name);
    if (validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("validity (" + validity + ") must be positive");
    }
    Files.createDirectories(out);
    Instant now = Instant.now();
    try {
      KeyPair pair = newKeyPair();
      List<GeneralName> sans = new ArrayList<>();
      sans.add(new GeneralName(GeneralName.uniformResourceIdentifier, role.uri()));
      List<String> names = new ArrayList<>(hosts);
      if (role == TlsRole.NODE && !names.contains(name)) {
        names.add(0, name);
      }
      for (String h : names) {
        sans.add(isAddress(h) ? new GeneralName(GeneralName.iPAddress, h)
            : new GeneralName(GeneralName.dNSName, h));
      }
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(cert, serial(),
          Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)),
          new X500Principal("CN=" + name + ",OU=" + role.label() + ",O=ParityFS"),
          pair.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
          .addExtension(Extension.subjectAlternativeName, false,
              new GeneralNames(sans.toArray(GeneralName[]::new)))
          .addExtension(Extension.authorityKeyIdentifier, false,
              ext.createAuthorityKeyIdentifier(cert))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(pair.getPublic()));
      X509Certificate c = new JcaX509CertificateConverter().getCertificate(b.build(signer(key)));
      Path k = out.resolve(name + ".key");
      Path crt = out.resolve(name + ".crt");
      writePem(k, "PRIVATE KEY", pair.getPrivate().getEncoded(), PRIVATE);
      writePem(crt, "CERTIFICATE", c.getEncoded(), PUBLIC);
      Path both = out.resolve(name + ".pem");
      writePem(both, "PRIVATE KEY", pair.getPrivate().getEncoded(), PRIVATE);
      Files.writeString(both, pem("CERTIFICATE", c.getEncoded()), StandardCharsets.US_ASCII,
          StandardOpenOption.APPEND);
      if (!Files.isSameFile(out, dir)) {
        Files.copy(dir.resolve(CA_CERT), out.resolve(CA_CERT),
            StandardCopyOption.REPLACE_EXISTING);
      }
      return new Issued(k, crt, both, c);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot issue " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Revokes {@code certificate} (issued by this CA): {@value #CA_CRL} is written again with it
   * and every certificate revoked before, valid until the CA's own end, so it never lapses.
   *
   * @return the CRL file
   */
  public Path revoke(X509Certificate certificate) throws IOException {
    if (!certificate.getIssuerX500Principal().equals(cert.getSubjectX500Principal())) {
      throw new IllegalArgumentException(certificate.getSubjectX500Principal()
          + " was not issued by this CA");
    }
    Path crlFile = dir.resolve(CA_CRL);
    try {
      Instant now = Instant.now();
      X509v2CRLBuilder b = new X509v2CRLBuilder(
          X500Name.getInstance(cert.getSubjectX500Principal().getEncoded()), Date.from(now));
      b.setNextUpdate(cert.getNotAfter());
      if (Files.exists(crlFile)) {
        try (var in = Files.newInputStream(crlFile)) {
          X509CRL old = (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in);
          b.addCRL(new X509CRLHolder(old.getEncoded()));
        }
      }
      b.addCRLEntry(certificate.getSerialNumber(), Date.from(now), CRLReason.keyCompromise);
      b.addExtension(Extension.authorityKeyIdentifier, false,
          new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(cert));
      X509CRL crl = new JcaX509CRLConverter().getCRL(b.build(signer(key)));
      Path tmp = dir.resolve(CA_CRL + ".tmp");
      writePem(tmp, "X509 CRL", crl.getEncoded(), PUBLIC);
      Files.move(tmp, crlFile, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      return crlFile;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot revoke: " + e.getMessage(), e);
    }
  }

  private static void checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name '" + name + "': letters, digits, '.', '_' and"
          + " '-', at most 64, starting with a letter or digit");
    }
  }

  private static boolean isAddress(String h) {
    return h.matches("[0-9.]+") || h.contains(":");
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
    return g.generateKeyPair();
  }

  private static ContentSigner signer(PrivateKey key) throws OperatorCreationException {
    return new JcaContentSignerBuilder(SIGNATURE).build(key);
  }

  private static BigInteger serial() {
    return new BigInteger(127, new SecureRandom()).add(BigInteger.ONE);
  }

  /** Writes {@code der} as PEM with {@code perms}, set before any byte is written. */
  private static void writePem(Path p, String type, byte[] der, Set<PosixFilePermission> perms)
      throws IOException {
    Files.deleteIfExists(p);
    try {
      Files.createFile(p, PosixFilePermissions.asFileAttribute(perms));
    } catch (UnsupportedOperationException e) {
      Files.createFile(p); // not a POSIX file system
    }
    Files.writeString(p, pem(type, der), StandardCharsets.US_ASCII);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  /** A PKCS#8 PEM EC private key. */
  static PrivateKey readKey(Path pem) throws IOException {
    String text = Files.readString(pem, StandardCharsets.US_ASCII);
    int b = text.indexOf("-----BEGIN PRIVATE KEY-----");
    int e = text.indexOf("-----END PRIVATE KEY-----");
    if (b < 0 || e < b) {
      throw new IOException(pem + ": not a PKCS#8 PEM private key");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(b + 27, e));
    try {
      return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException ex) {
      throw new IOException(pem + ": " + ex.getMessage(), ex);
    }
  }
}
