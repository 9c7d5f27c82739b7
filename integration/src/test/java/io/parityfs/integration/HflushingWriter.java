package io.parityfs.integration;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import java.nio.file.Path;

/**
 * A client process for {@link AcrossWriterKillTest} to kill: writes {@code <small>} bytes of
 * {@link ExpectedBytes} (path, {@link #WRITER}) into a new file, hflushes and prints {@code ACK
 * <small>}, writes {@code <more>} bytes after them without hflushing, prints {@code WROTE}, and
 * waits to be killed.
 *
 * <p>Arguments: {@code <local cluster's folder> <path> <small> <more>}.
 */
final class HflushingWriter {
  static final String WRITER = "hflushing-writer";

  private HflushingWriter() {}

  public static void main(String[] args) throws Exception {
    ClientConfig config = LocalCluster.open(Path.of(args[0])).clientConfig().build();
    String path = args[1];
    long small = Long.parseLong(args[2]);
    long more = Long.parseLong(args[3]);
    String key = ExpectedBytes.key(path, WRITER);
    try (ParityClient c = ParityClient.connect(config, Caller.of("root"));
        PfsOutputStream out = c.create(path, CreateOptions.file())) {
      TestFiles.writeTo(out, key, small, small, n -> {
        System.out.println("ACK " + n);
        System.out.flush();
      });
      TestFiles.writeTo(out, key, small + more, 0, n -> { });
      System.out.println("WROTE");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
