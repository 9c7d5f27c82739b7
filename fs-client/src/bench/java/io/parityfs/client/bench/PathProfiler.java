package io.parityfs.client.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

/**
 * CPU nanoseconds per data byte of one phase, split into the stages of the data path, for a
 * process that holds the client, the storage nodes and ZooKeeper (the benchmarks' in-JVM
 * cluster), measured with async-profiler's CPU sampler ({@code event=cpu}: perf_events, one
 * sample per {@value #INTERVAL_NS} ns of CPU time of any thread, Java, JVM or kernel stack
 * included). Unlike JFR's execution samples it sees the time spent in JIT stubs (CRC32C, array
 * copies) and in the kernel, which is where much of this path's time goes.
 *
 * <p>Each sample's stack is put in one stage ({@link #stage}): the thread decides for the JVM's
 * own threads (GC, JIT compilers); otherwise the innermost frame that names a stage (a kernel
 * frame by the subsystem of the kernel frames below it, a CRC32C update, a memory copy, a codec
 * kernel, ParityFS's own packages, Netty). Client or node side is the thread's: the client's
 * threads are {@code pfs-client-io-*} (Netty), {@code pfs-transfer-*} and {@code pfs-copy-*}
 * (chunk transfers) and the benchmark's {@code ckpt-*}; the other threads are the node's (or
 * ZooKeeper's, whose stacks name it). The sum is compared with the process's CPU time ({@code
 * coverage}) so a profile that lost samples shows it.
 */
final class PathProfiler {
  static final long INTERVAL_NS = 1_000_000;

  /** One phase's result: nanoseconds per data byte by stage, in table order. */
  record Profile(String name, long bytes, double seconds, long samples, double processNs,
      Map<String, Double> nsPerByte, Map<String, Double> copySites) {
    double total() {
      return nsPerByte.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Profiled CPU time ÷ the process's CPU time over the phase. */
    double coverage() {
      return total() * bytes / processNs;
    }
  }

  /** The stages in the order of the cost table (a write's bytes flow top to bottom). */
  static final List<String> STAGES = List.of(
      "benchmark: fill and compare",
      "client: copy",
      "client: frame checksum",
      "client: stream and protocol",
      "client: Netty and NIO",
      "kernel: network (loopback TCP)",
      "node: Netty and NIO",
      "node: frame checksum",
      "node: copy",
      "node: request handling",
      "encode (parity)",
      "cell checksum",
      "array: layout and commit",
      "kernel: files (page cache, fsync, journal)",
      "metadata commit (ZooKeeper, Curator)",
      "kernel: scheduling, futex, epoll",
      "kernel: page faults, memory",
      "kernel: other",
      "JVM: allocation and safepoints",
      "JVM: GC",
      "JVM: JIT compilers",
      "JVM: other threads",
      "other");

  private final String name;
  private final Path dir;
  private final AsyncProfiler profiler;
  private final long process0;
  private final long t0;

  private PathProfiler(String name, Path dir) throws IOException {
    this.name = name;
    this.dir = dir;
    Files.createDirectories(dir);
    this.profiler = AsyncProfiler.getInstance();
    this.process0 = processCpuNanos();
    this.t0 = System.nanoTime();
    profiler.execute("start,event=cpu,interval=" + INTERVAL_NS + ",threads");
  }

  /** Starts profiling a phase; its collapsed stacks go to {@code dir} (for a closer look). */
  static PathProfiler start(String name, Path dir) throws IOException {
    return new PathProfiler(name, dir);
  }

  /** Ends the phase that moved {@code bytes} of data and attributes its CPU time. */
  Profile stop(long bytes) throws IOException {
    profiler.stop();
    double seconds = (System.nanoTime() - t0) / 1e9;
    long process = processCpuNanos() - process0;
    String collapsed = profiler.dumpCollapsed(Counter.TOTAL);
    Files.writeString(dir.resolve(name + ".collapsed"), collapsed);
    Map<String, Double> ns = new LinkedHashMap<>();
    STAGES.forEach(s -> ns.put(s, 0.0));
    Map<String, Double> sites = new HashMap<>();
    long samples = 0;
    for (String line : collapsed.split("\n")) {
      int sp = line.lastIndexOf(' ');
      if (sp <= 0) {
        continue;
      }
      long value = Long.parseLong(line.substring(sp + 1));
      String[] frames = line.substring(0, sp).split(";");
      String stage = stage(frames);
      ns.merge(stage, (double) value, Double::sum);
      if (stage.endsWith(": copy") || isKernelCopy(frames[frames.length - 1])) {
        sites.merge(copySite(frames), (double) value, Double::sum);
      }
      samples += value / INTERVAL_NS;
    }
    Map<String, Double> perByte = new LinkedHashMap<>();
    ns.forEach((k, v) -> perByte.put(k, v / bytes));
    Map<String, Double> copies = new LinkedHashMap<>();
    sites.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> copies.put(e.getKey(), e.getValue() / bytes));
    return new Profile(name, bytes, seconds, samples, process, perByte, copies);
  }

  /** The kernel's own copies of socket and file data (user to kernel and back). */
  private static boolean isKernelCopy(String leaf) {
    return leaf.startsWith("_copy_to_iter") || leaf.startsWith("_copy_from_iter")
        || leaf.startsWith("copy_user") || leaf.startsWith("rep_movs")
        || leaf.startsWith("copy_page_") || leaf.startsWith("memcpy_orig");
  }

  /**
   * Where a copy happens: the thread's kind, the kernel's side of a system call, and the
   * innermost ParityFS method (or Netty's, when no ParityFS frame is on the stack).
   */
  static String copySite(String[] frames) {
    String thread = frames[0].replaceAll(" tid=\\d+\\]$", "]").replaceAll("\\d+", "N");
    String leaf = frames[frames.length - 1];
    String what = isKernelCopy(leaf) ? "kernel " + leaf.replace("_[k]", "") : "user";
    String at = null;
    for (int i = frames.length - 1; i >= 1 && at == null; i--) {
      if (frames[i].startsWith("io/parityfs/")) {
        at = frames[i];
      }
    }
    for (int i = frames.length - 1; i >= 1 && at == null; i--) {
      if (frames[i].startsWith("io/netty/") || frames[i].startsWith("sun/nio/ch/")) {
        at = frames[i];
      }
    }
    return thread + " " + what + " at " + (at == null ? "?" : at.replace('/', '.'));
  }

  // ------------------------------------------------------------------ classification

  /** The stage of one stack ({@code frames[0]} the thread, then root to leaf). */
  static String stage(String[] frames) {
    String thread = frames[0].startsWith("[") ? frames[0] : "";
    if (thread.contains("GC Thread") || thread.contains("G1 ") || thread.contains("GC Task")
        || thread.contains("ParGC")) {
      return "JVM: GC";
    }
    if (thread.contains("CompilerThread") || thread.contains("C1 ") || thread.contains("C2 ")) {
      return "JVM: JIT compilers";
    }
    boolean client = thread.startsWith("[pfs-client-io") || thread.startsWith("[pfs-transfer-")
        || thread.startsWith("[pfs-copy-") || thread.startsWith("[ckpt-");
    String side = client ? "client: " : "node: ";
    for (int i = frames.length - 1; i >= 1; i--) {
      String f = frames[i];
      if (f.endsWith("_[k]")) {
        return kernel(frames, i);
      }
      if (f.contains("CRC32C") || f.contains("crc32c")) {
        return below(frames, i, "io/parityfs/raid/array") ? "cell checksum"
            : side + "frame checksum";
      }
      if ((f.contains("vectorizedMismatch") || f.startsWith("java/util/Arrays.equals")
          || f.startsWith("java/util/Random")) && below(frames, i, "io/parityfs/client/bench")) {
        return "benchmark: fill and compare";
      }
      if (f.contains("arraycopy") || f.contains("Unsafe.copyMemory") || f.contains("memmove")
          || f.contains("memcpy") || f.contains("Unsafe_CopyMemory")) {
        return side + "copy";
      }
      if (f.startsWith("io/parityfs/raid/codec") || f.startsWith("jdk/incubator/vector")) {
        return "encode (parity)";
      }
      if (f.startsWith("io/parityfs/raid/array")) {
        return "array: layout and commit";
      }
      if (f.startsWith("io/parityfs/meta") || f.startsWith("org/apache/zookeeper")
          || f.startsWith("org/apache/curator")) {
        return "metadata commit (ZooKeeper, Curator)";
      }
      if (f.startsWith("io/parityfs/client/bench")) {
        return "benchmark: fill and compare";
      }
      if (f.startsWith("io/parityfs/client") || f.startsWith("io/parityfs/hadoop")) {
        return "client: stream and protocol";
      }
      if (f.startsWith("io/parityfs/node")) {
        return client ? "client: stream and protocol" : "node: request handling";
      }
      if (f.startsWith("io/netty") || f.startsWith("sun/nio/ch/")) {
        return side + "Netty and NIO";
      }
      if (f.contains("MemAllocator") || f.contains("CollectedHeap") || f.contains("TLAB")
          || f.contains("SafepointSynchronize") || f.contains("ObjArrayAllocator")
          || f.contains("TypeArrayKlass::allocate") || f.contains("OptoRuntime::new")) {
        return "JVM: allocation and safepoints";
      }
    }
    return thread.startsWith("[pfs-") || thread.startsWith("[ckpt-") ? "other"
        : "JVM: other threads";
  }

  /** A kernel stack's subsystem, from its frames root to leaf (from {@code first} on). */
  private static String kernel(String[] frames, int leaf) {
    int first = leaf;
    while (first > 1 && frames[first - 1].endsWith("_[k]")) {
      first--;
    }
    for (KernelRule rule : KERNEL_RULES) { // in order: a socket write is network, not files
      for (int i = first; i <= leaf; i++) {
        if (rule.matches(frames[i])) {
          return rule.stage;
        }
      }
    }
    return "kernel: other";
  }

  /** A kernel stage: a stack's kernel frame that starts with a prefix or holds a part. */
  private record KernelRule(String stage, List<String> prefixes, List<String> parts) {
    boolean matches(String frame) {
      return prefixes.stream().anyMatch(frame::startsWith)
          || parts.stream().anyMatch(frame::contains);
    }
  }

  private static final List<KernelRule> KERNEL_RULES = List.of(
      new KernelRule("kernel: network (loopback TCP)", List.of("tcp_", "sock_", "inet_",
          "__sys_sendto", "__sys_recvfrom", "__x64_sys_sendto", "__x64_sys_recvfrom",
          "__x64_sys_sendmsg", "__x64_sys_recvmsg", "net_rx", "__napi", "ip_",
          "__dev_queue_xmit", "loopback_"), List.of()),
      new KernelRule("kernel: files (page cache, fsync, journal)", List.of("ext4_", "jbd2",
          "vfs_fsync", "__x64_sys_fsync", "__x64_sys_fdatasync", "generic_perform_write",
          "filemap_", "iomap_", "xfs_", "btrfs_", "__x64_sys_pwrite", "__x64_sys_pread",
          "__x64_sys_write", "__x64_sys_read", "__x64_sys_rename", "__x64_sys_openat", "blk_",
          "submit_bio"), List.of()),
      new KernelRule("kernel: scheduling, futex, epoll", List.of("schedule",
          "__x64_sys_sched_yield", "try_to_wake_up", "__x64_sys_nanosleep", "hrtimer"),
          List.of("futex", "epoll")),
      new KernelRule("kernel: page faults, memory", List.of("do_anonymous_page", "clear_page",
          "handle_mm_fault", "__x64_sys_madvise", "__x64_sys_munmap", "__x64_sys_mmap"),
          List.of("page_fault")));

  /** Whether a frame rootward of {@code i} starts with {@code prefix}. */
  private static boolean below(String[] frames, int i, String prefix) {
    for (int j = i - 1; j >= 1; j--) {
      if (frames[j].startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
