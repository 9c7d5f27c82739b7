package io.parityfs.node.net;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link HostileFrameCases}' malformed and misbehaving input, every case, sent over mutual
 * TLS 1.3 by a peer with a client certificate of the cluster CA (issue 18): authentication
 * changes nothing of how the node answers a hostile frame, and a TLS connection closed, idle or
 * cut mid-frame leaves nothing in hand.
 */
class NodeServerHostileTlsTest extends HostileFrameCases {
  @BeforeAll
  static void start() throws Exception {
    startWith(dir.resolve("pki"));
  }
}
