package io.parityfs.meta;

import java.nio.file.Path;
import java.util.Objects;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

/**
 * TLS from a ParityFS process to ZooKeeper (docs/security.md, "TLS to ZooKeeper"): ZooKeeper's
 * own client TLS ({@code zookeeper.client.secure} over its Netty socket), its stores in PEM. The
 * client checks the server's certificate against {@code trustStore} and the address it dialled;
 * it presents the key and certificate in {@code keyStore} when the server asks for one
 * ({@code ssl.clientAuth=need}, as the local cluster's ZooKeeper does). Digest authentication and
 * the creator-only ACLs stay as they are: TLS encrypts and authenticates the transport, the
 * digest still decides who may touch the namespace.
 *
 * @param trustStore the CA certificate(s) ZooKeeper's certificate must chain to (PEM), such as
 *     the cluster CA's {@code ca.crt}
 * @param keyStore one PEM file holding the private key (PKCS#8) and its certificate, as
 *     {@code parityfs ca issue} writes {@code NAME.pem}; {@code null} for none (a server that
 *     does not ask for client certificates)
 */
public record ZooKeeperTls(Path trustStore, Path keyStore) {
  /** The socket ZooKeeper's client needs for TLS (the NIO one has none). */
  static final String NETTY_SOCKET = ClientCnxnSocketNetty.class.getName();

  public ZooKeeperTls {
    Objects.requireNonNull(trustStore, "trustStore: TLS to ZooKeeper needs the CA certificate"
        + " its server certificate chains to");
  }

  /**
   * The ZooKeeper client configuration for TLS to the server: secure, the Netty socket, PEM
   * stores, TLS 1.3, the server's host name checked.
   */
  ZKClientConfig clientConfig() {
    ZKClientConfig c = new ZKClientConfig();
    c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
    c.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, NETTY_SOCKET);
    try (ClientX509Util x = new ClientX509Util()) {
      c.setProperty(x.getSslTruststoreLocationProperty(), trustStore.toString());
      c.setProperty(x.getSslTruststoreTypeProperty(), "PEM");
      if (keyStore != null) {
        c.setProperty(x.getSslKeystoreLocationProperty(), keyStore.toString());
        c.setProperty(x.getSslKeystoreTypeProperty(), "PEM");
      }
      c.setProperty(x.getSslProtocolProperty(), "TLSv1.3");
      c.setProperty(x.getSslEnabledProtocolsProperty(), "TLSv1.3");
      c.setProperty(x.getSslHostnameVerificationEnabledProperty(), "true");
    }
    return c;
  }

  @Override
  public String toString() {
    return "ZooKeeperTls[trustStore=" + trustStore + ", keyStore="
        + (keyStore == null ? "none" : keyStore) + "]";
  }
}
