package io.parityfs.raid.codec.gpu.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures how much the codec slows a GPU tenant down: runs the tenant script ({@code
 * tenant_load.py}, a PyTorch matrix-multiply loop in its own process) for a fixed window alone,
 * then again while the codec works (started when the tenant touches its {@code --ready} file,
 * stopped when the tenant exits), and compares the tenant's iterations per second.
 *
 * <p>Never hangs: the tenant must get ready within {@link #STARTUP_SECONDS} and finish its
 * window within {@link #GRACE_SECONDS} more, else it is killed and the reason reported; the
 * codec's loop ends with the tenant or at the same bound. A missing interpreter, PyTorch or CUDA
 * in Python makes the slowdown unknown (null) with the reason, not a failure.
 */
final class TenantLoad {
  /** Python import of torch, CUDA initialisation and the warm-up multiplies. */
  static final int STARTUP_SECONDS = 120;
  /** Beyond its window, for the tenant's last batch and its exit. */
  static final int GRACE_SECONDS = 30;

  private static final Pattern RATE = Pattern.compile("\"iter_per_s\"\\s*:\\s*([-0-9.eE+]+)");
  private static final Pattern ERROR = Pattern.compile("\"error\"\\s*:\\s*\"([^\"]*)\"");

  /** The tenant's own report of one window, or why there is none. */
  record Window(double iterPerSecond, String line, String error) {
    boolean ok() {
      return error == null;
    }
  }

  /**
   * The comparison.
   *
   * @param slowdownPct (1 - loaded / baseline) x 100, or null when unknown
   * @param reason why it is unknown, or null
   * @param codecGbps what the codec achieved during the loaded window (0 when it did not run)
   */
  record Outcome(Double slowdownPct, String reason, Window baseline, Window loaded,
      double codecGbps) {}

  private final List<String> command;
  private final Path script;
  private final double seconds;
  private volatile Process current;

  /** {@code python script --seconds N}; {@code --ready FILE} is added per run. */
  TenantLoad(String python, Path script, double seconds) {
    this.command = List.of(python, script.toString(), "--seconds", format(seconds));
    this.script = script;
    this.seconds = seconds;
  }

  /** The slowdown in percent: (1 - loaded / baseline) x 100. */
  static double slowdownPct(double baseline, double loaded) {
    if (!(baseline > 0) || !(loaded >= 0)) {
      throw new IllegalArgumentException(
          "rates must be positive (baseline " + baseline + ", loaded " + loaded + ")");
    }
    return (1 - loaded / baseline) * 100;
  }

  /** Reads the tenant's JSON line (the last line that starts with '{'). */
  static Window parse(String stdout, int exitCode, String stderr) {
    String line = null;
    for (String l : stdout.split("\n")) {
      if (l.trim().startsWith("{")) {
        line = l.trim();
      }
    }
    if (line != null) {
      Matcher e = ERROR.matcher(line);
      if (e.find()) {
        return new Window(0, line, e.group(1));
      }
      Matcher r = RATE.matcher(line);
      if (r.find() && exitCode == 0) {
        try {
          double rate = Double.parseDouble(r.group(1));
          if (rate > 0) {
            return new Window(rate, line, null);
          }
        } catch (NumberFormatException ignored) {
          // reported below
        }
      }
    }
    return new Window(0, line, "the tenant exited with status " + exitCode
        + (line == null ? " and printed no result" : " printing " + line)
        + (stderr.isBlank() ? "" : "; stderr: " + tail(stderr, 400)));
  }

  /**
   * The baseline window, then the loaded one with {@code codecStep} called in a loop (each call
   * returns the data bytes it processed) while the tenant's timed window runs.
   */
  Outcome measure(CodecStep codecStep) {
    if (!Files.isRegularFile(script)) {
      return new Outcome(null, "the tenant script " + script + " does not exist", null, null, 0);
    }
    Window base = window(null);
    if (!base.ok()) {
      return new Outcome(null, "tenant alone: " + base.error(), base, null, 0);
    }
    double[] codec = new double[1];
    RuntimeException[] failure = new RuntimeException[1];
    Window loaded = window(running -> {
      long bytes = 0;
      long t0 = System.nanoTime();
      long stop = t0 + (long) ((seconds + GRACE_SECONDS) * 1e9);
      try {
        while (running.getAsBoolean() && System.nanoTime() < stop) {
          bytes += codecStep.run();
        }
      } catch (RuntimeException e) {
        failure[0] = e;
      }
      codec[0] = ThroughputBench.rate(bytes, System.nanoTime() - t0);
    });
    if (failure[0] != null) {
      throw failure[0];
    }
    if (!loaded.ok()) {
      return new Outcome(null, "tenant beside the codec: " + loaded.error(), base, loaded,
          codec[0]);
    }
    return new Outcome(slowdownPct(base.iterPerSecond(), loaded.iterPerSecond()), null, base,
        loaded, codec[0]);
  }

  /** One unit of codec work, returning the data bytes it processed. */
  interface CodecStep {
    long run();
  }

  /** Work to run while the tenant's window is open; {@code running} says whether it still is. */
  interface Beside {
    void run(BooleanSupplier running);
  }

  /** Kills the tenant if one is running (for the watchdog). */
  void kill() {
    Process p = current;
    if (p != null) {
      p.destroyForcibly();
    }
  }

  private Window window(Beside beside) {
    Path dir;
    try {
      dir = Files.createTempDirectory("gpu-check-tenant");
    } catch (IOException e) {
      return new Window(0, null, "cannot create a temporary directory: " + e.getMessage());
    }
    Path ready = dir.resolve("ready");
    Path stdout = dir.resolve("stdout");
    Path stderr = dir.resolve("stderr");
    List<String> cmd = new ArrayList<>(command);
    cmd.add("--ready");
    cmd.add(ready.toString());
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
          .start();
    } catch (IOException e) {
      return new Window(0, null, "cannot start " + String.join(" ", cmd) + ": " + e.getMessage());
    }
    current = p;
    try {
      long readyBy = System.nanoTime() + STARTUP_SECONDS * 1_000_000_000L;
      while (!Files.exists(ready) && p.isAlive() && System.nanoTime() < readyBy) {
        Thread.sleep(10);
      }
      if (!Files.exists(ready) && p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return new Window(0, null, "the tenant was not ready within " + STARTUP_SECONDS + " s");
      }
      if (beside != null && p.isAlive()) {
        beside.run(p::isAlive);
      }
      if (!p.waitFor((long) seconds + GRACE_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return new Window(0, null, "the tenant did not finish its " + format(seconds)
            + " s window within " + GRACE_SECONDS + " s more");
      }
      return parse(read(stdout), p.exitValue(), read(stderr));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return new Window(0, null, "interrupted");
    } finally {
      current = null;
      if (p.isAlive()) {
        p.destroyForcibly();
      }
      for (Path f : new Path[] {ready, stdout, stderr, dir}) {
        try {
          Files.deleteIfExists(f);
        } catch (IOException ignored) {
          // a temporary file left behind is harmless
        }
      }
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static String tail(String s, int n) {
    String t = s.strip();
    return t.length() <= n ? t : "..." + t.substring(t.length() - n);
  }

  private static String format(double seconds) {
    return seconds == Math.rint(seconds) ? Long.toString((long) seconds)
        : String.format(Locale.ROOT, "%.3f", seconds);
  }
}
