package io.parityfs.node.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.X509CRL;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty TLS context of a node (server side: a client certificate required) or of a client,
 * built from a {@link TlsConfig}: TLS 1.3 only, the JDK's provider, the cluster CA the only
 * trust anchor, its revocation list when there is one. The files are looked at again at most
 * once per {@link #RECHECK_MILLIS}, and a change (a rotated certificate, a new CRL) is taken by
 * the next connection; connections open keep theirs. A change that does not load (a file half
 * written) keeps the last good context, logged once. Thread-safe.
 */
public final class TlsContext {
  private static final Logger LOG = LoggerFactory.getLogger(TlsContext.class);
  /** The system property that chooses the TLS engine ({@link #provider()}). */
  public static final String PROVIDER_PROPERTY = "parityfs.tls.provider";
  /** The least time between two looks at the files. */
  public static final long RECHECK_MILLIS = 1000;

  private record Loaded(SslContext context, List<String> stamps, long checkedAt) {}

  private final TlsConfig config;
  private final boolean server;
  private volatile Loaded loaded;
  private volatile int reloads;

  private TlsContext(TlsConfig config, boolean server) throws IOException {
    this.config = config;
    this.server = server;
    this.loaded = new Loaded(build(), stamps(), System.currentTimeMillis());
  }

  /** A node's context; fails naming the file that is missing or wrong. */
  public static TlsContext forServer(TlsConfig config) throws IOException {
    return new TlsContext(check(config), true);
  }

  /** A client's context; fails naming the file that is missing or wrong. */
  public static TlsContext forClient(TlsConfig config) throws IOException {
    return new TlsContext(check(config), false);
  }

  private static TlsConfig check(TlsConfig config) {
    if (!config.enabled()) {
      throw new IllegalArgumentException("TLS is off in " + config);
    }
    return config;
  }

  public TlsConfig config() {
    return config;
  }

  /** How often the files changed and were loaded again (for tests and metrics). */
  public int reloads() {
    return reloads;
  }

  /**
   * A handler for a new connection (first in its pipeline). {@code host} is the peer's name
   * (client side: checked against the node certificate's names); null on the server.
   */
  public SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
    SslContext ctx = current();
    return server || host == null ? ctx.newHandler(alloc) : ctx.newHandler(alloc, host, port);
  }

  /** The Netty context new connections get now. */
  public SslContext sslContext() {
    return current();
  }

  /** Loads the files again now if they changed. */
  public void reloadIfChanged() {
    Loaded l = loaded;
    List<String> now = stamps();
    if (now.equals(l.stamps())) {
      loaded = new Loaded(l.context(), l.stamps(), System.currentTimeMillis());
      return;
    }
    try {
      SslContext next = build();
      loaded = new Loaded(next, now, System.currentTimeMillis());
      reloads++;
      LOG.info("TLS files changed, loaded again: {}", config);
    } catch (IOException | RuntimeException e) {
      // keep the last good context; look again (and warn again) at the next change only
      loaded = new Loaded(l.context(), now, System.currentTimeMillis());
      LOG.warn("TLS files changed but do not load, keeping the"
          + " previous ones: {}", e.getMessage());
    }
  }

  private SslContext current() {
    if (System.currentTimeMillis() - loaded.checkedAt() >= RECHECK_MILLIS) {
      synchronized (this) {
        if (System.currentTimeMillis() - loaded.checkedAt() >= RECHECK_MILLIS) {
          reloadIfChanged();
        }
      }
    }
    return loaded.context();
  }

  private List<String> stamps() {
    List<String> s = new ArrayList<>();
    for (Path p : files()) {
      try {
        s.add(p + "@" + Files.getLastModifiedTime(p).toMillis() + "/" + Files.size(p));
      } catch (IOException e) {
        s.add(p + "@absent");
      }
    }
    return s;
  }

  private List<Path> files() {
    List<Path> f = new ArrayList<>(List.of(config.key(), config.cert(), config.ca()));
    if (config.crl() != null) {
      f.add(config.crl());
    }
    return f;
  }

  private SslContext build() throws IOException {
    for (Path p : List.of(config.key(), config.cert(), config.ca())) {
      if (!Files.isReadable(p)) {
        throw new NoSuchFileException(p.toString(), null, "TLS file missing or unreadable"
            + " (parityfs ca issue makes it)");
      }
    }
    try {
      SslContextBuilder b = server
          ? SslContextBuilder.forServer(config.cert().toFile(), config.key().toFile())
              .clientAuth(ClientAuth.REQUIRE)
          : SslContextBuilder.forClient().keyManager(config.cert().toFile(),
              config.key().toFile()).endpointIdentificationAlgorithm("HTTPS");
      return b.sslProvider(provider()).protocols("TLSv1.3").trustManager(trust()).build();
    } catch (GeneralSecurityException | IllegalArgumentException | SSLException e) {
      throw new IOException("cannot load the TLS files of " + config + ": " + e.getMessage(), e);
    }
  }

  /**
   * The TLS engine: BoringSSL through netty-tcnative where it loads (Linux x86-64; the node
   * benchmark measured it 1.5-1.7x the JDK's), else the JDK's. {@code -D}{@value
   * #PROVIDER_PROPERTY} chooses: {@code auto} (the default), {@code openssl} (BoringSSL or an
   * error) or {@code jdk}.
   */
  public static SslProvider provider() {
    String p = System.getProperty(PROVIDER_PROPERTY, "auto");
    switch (p) {
      case "auto":
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
      case "openssl":
        if (!OpenSsl.isAvailable()) {
          throw new IllegalArgumentException(PROVIDER_PROPERTY + "=openssl, but netty-tcnative"
              + " does not load here: " + OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
      case "jdk":
        return SslProvider.JDK;
      default:
        throw new IllegalArgumentException(PROVIDER_PROPERTY + " must be auto, jdk or openssl: "
            + p);
    }
  }

  /** The engine {@link #provider()} picks, in words (for logs and the benchmark). */
  public static String providerName() {
    return provider() == SslProvider.OPENSSL ? OpenSsl.versionString() + " (netty-tcnative)"
        : "the JDK's engine (" + Runtime.version() + ")";
  }

  /**
   * A JDK {@link SSLContext} for an HTTPS server with the key and certificate of {@code config}
   * (the node's metrics endpoint): TLS 1.3 and 1.2, no client certificate asked for (its
   * clients authenticate with HTTP basic authentication).
   */
  public static SSLContext httpsServerContext(TlsConfig config) throws IOException {
    check(config);
    try {
      return ((JdkSslContext) SslContextBuilder.forServer(config.cert().toFile(),
          config.key().toFile()).sslProvider(SslProvider.JDK).protocols("TLSv1.3", "TLSv1.2")
          .build()).context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException("cannot load the TLS files of " + config + ": " + e.getMessage(), e);
    }
  }

  /**
   * A JDK {@link SSLContext} for a client with the key and certificate of {@code config},
   * trusting its CA (tools that speak to a TLS service through plain sockets, such as the local
   * cluster's probe of ZooKeeper's four-letter words): TLS 1.3.
   */
  public static SSLContext jdkClientContext(TlsConfig config) throws IOException {
    check(config);
    try {
      return ((JdkSslContext) SslContextBuilder.forClient()
          .keyManager(config.cert().toFile(), config.key().toFile())
          .trustManager(config.ca().toFile()).sslProvider(SslProvider.JDK).protocols("TLSv1.3")
          .build()).context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException("cannot load the TLS files of " + config + ": " + e.getMessage(), e);
    }
  }

  /** PKIX with the cluster CA as the one anchor, and its CRL when there is one. */
  private TrustManagerFactory trust() throws IOException, GeneralSecurityException {
    List<X509Certificate> cas = readCertificates(config.ca());
    if (cas.isEmpty()) {
      throw new IOException(config.ca() + ": no certificate in it");
    }
    KeyStore anchors = KeyStore.getInstance("PKCS12");
    anchors.load(null, null);
    for (int i = 0; i < cas.size(); i++) {
      anchors.setCertificateEntry("ca" + i, cas.get(i));
    }
    PKIXBuilderParameters p = new PKIXBuilderParameters(anchors, new X509CertSelector());
    Optional<X509CRL> crl = readCrl(config.crl());
    p.setRevocationEnabled(crl.isPresent());
    if (crl.isPresent()) {
      p.addCertStore(CertStore.getInstance("Collection",
          new CollectionCertStoreParameters(List.of(crl.get()))));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(new CertPathTrustManagerParameters(p));
    return tmf;
  }

  /** The certificates of a PEM file. */
  public static List<X509Certificate> readCertificates(Path pem) throws IOException {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> all = CertificateFactory.getInstance("X.509")
          .generateCertificates(in);
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : all) {
        out.add((X509Certificate) c);
      }
      return out;
    } catch (GeneralSecurityException e) {
      throw new IOException(pem + ": not a PEM certificate: " + e.getMessage(), e);
    }
  }

  private static Optional<X509CRL> readCrl(Path pem) throws IOException {
    if (pem == null || !Files.exists(pem)) {
      return Optional.empty();
    }
    try (InputStream in = Files.newInputStream(pem)) {
      return Optional.of((X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in));
    } catch (GeneralSecurityException e) {
      throw new IOException(pem + ": not a PEM CRL: " + e.getMessage(), e);
    }
  }

  /**
   * The role of the peer of an established session, from its certificate (the handshake has
   * already checked it against the CA); empty when its certificate names no single role.
   */
  public static Optional<TlsRole> peerRole(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? TlsRole.of(x)
          : Optional.empty();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
  }

  /** The peer's subject, for logs ("unknown" before a certificate was seen). */
  public static String peerName(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x
          ? x.getSubjectX500Principal().getName() : "unknown";
    } catch (SSLPeerUnverifiedException e) {
      return "unknown";
    }
  }
}
