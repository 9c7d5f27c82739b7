package io.parityfs.raid.codec.gpu.check;

import java.io.PrintStream;

/**
 * Ends the run after the deadline whatever it waits for (a JCuda call stuck in native code
 * never returns to an orderly exit): says which phase it was in, kills the tenant, prints the
 * main thread's stack and halts with status 4. Tests pass an unstarted one.
 */
final class SelfCheckWatchdog extends Thread {
  volatile String phase = "starting";
  volatile TenantLoad tenant;
  private final int seconds;
  private final PrintStream out;
  private final Thread main = Thread.currentThread();

  SelfCheckWatchdog(int seconds, PrintStream out) {
    super("gpu-check-watchdog");
    this.seconds = seconds;
    this.out = out;
    setDaemon(true);
  }

  @Override
  public void run() {
    try {
      Thread.sleep(seconds * 1000L);
    } catch (InterruptedException e) {
      return;
    }
    out.println("gpu-check: deadline of " + seconds + " s passed while " + phase
        + "; giving up");
    TenantLoad t = tenant;
    if (t != null) {
      t.kill();
    }
    for (StackTraceElement e : main.getStackTrace()) {
      out.println("    at " + e);
    }
    out.flush();
    Runtime.getRuntime().halt(GpuSelfCheck.FAILED);
  }
}
