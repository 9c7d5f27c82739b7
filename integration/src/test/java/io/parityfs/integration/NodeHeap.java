package io.parityfs.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of a JVM on this machine: {@code jcmd <pid> GC.run} (a full collection), then
 * the {@code used} figure of {@code jcmd <pid> GC.heap_info}. After a full collection what is
 * used is what is reachable, so a leak shows as growth between samples, whatever the
 * collector's timing; the nodes export no JVM metrics on {@code /metrics}.
 */
final class NodeHeap {
  private static final Pattern USED = Pattern.compile("heap\\s+total \\d+K, used (\\d+)K");

  private NodeHeap() {}

  /** The live heap of process {@code pid} in bytes. */
  static long liveBytes(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = USED.matcher(info);
    if (!m.find()) {
      throw new IOException("no heap figure in the GC.heap_info of " + pid + ": " + info);
    }
    return Long.parseLong(m.group(1)) << 10;
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }
}
