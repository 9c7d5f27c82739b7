package io.parityfs.node.net;

import org.junit.jupiter.api.BeforeAll;

/** {@link HostileFrameCases} over plaintext connections. */
class NodeServerHostileTest extends HostileFrameCases {
  @BeforeAll
  static void start() throws Exception {
    startWith(null);
  }
}
