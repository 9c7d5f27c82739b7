package io.parityfs.integration;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import java.nio.file.Path;

/**
 * A client process for {@link ClientKillTest} to kill: writes {@link ExpectedBytes} of the
 * path and {@link #WRITER} into a new file, hsyncing every {@code hsyncEvery} bytes, and prints {@code ACK <length>}
 * after each hsync returned (then {@code DONE} and waits to be killed).
 *
 * <p>Arguments: {@code <local cluster's folder> <path> <size> <hsyncEvery>}.
 */
final class CrashingWriter {
  /** The writer name of its bytes' key ({@link ExpectedBytes#key}). */
  static final String WRITER = "crashing-writer";

  private CrashingWriter() {}

  public static void main(String[] args) throws Exception {
    // the cluster's own settings: its ZooKeeper and, with TLS, its certificates
    ClientConfig config = LocalCluster.open(Path.of(args[0])).clientConfig().build();
    String path = args[1];
    long size = Long.parseLong(args[2]);
    long hsyncEvery = Long.parseLong(args[3]);
    try (ParityClient c = ParityClient.connect(config, Caller.of("root"));
        PfsOutputStream out = c.create(path, CreateOptions.file())) {
      TestFiles.writeTo(out, ExpectedBytes.key(path, WRITER), size, hsyncEvery, n -> {
        System.out.println("ACK " + n);
        System.out.flush();
      });
      System.out.println("DONE");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
