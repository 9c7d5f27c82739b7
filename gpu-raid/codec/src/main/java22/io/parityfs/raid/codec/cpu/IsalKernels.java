package io.parityfs.raid.codec.cpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.parityfs.raid.gf.GfMatrix;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The matrix apply on Intel ISA-L ({@code ec_init_tables} + {@code ec_encode_data} of
 * {@code libisal.so.2}), called through the JDK's foreign function API. ISA-L picks its own
 * instruction set at run time (GFNI with AVX-512 where the CPU has it, which the Vector API cannot
 * express), so Reed-Solomon encoding and every reconstruction run at its speed.
 *
 * <p>Only the matrix apply goes to ISA-L, and only when every shard is a direct buffer (a heap
 * buffer has no address a native call may keep for its duration). XOR, P+Q, delta updates and
 * heap buffers run on the fallback kernels (the Vector API's, else scalar): they are as fast there,
 * and ISA-L's {@code xor_gen}/{@code pq_gen} want 32-byte aligned lengths. The coefficients are
 * the codec's own matrix rows, so the bytes are the same whichever kernel runs.
 *
 * <p>This is Java 22 code, compiled into {@code META-INF/versions/22} of the codec's jar;
 * {@link CpuParityCodec} loads it reflectively on JDK 22+ only. Thread-safe: the per-call pointer
 * arrays are per thread, the tables per {@link GfProgram}.
 */
final class IsalKernels extends CpuKernels {
  /** The most shards ISA-L is handed per side of one call (k + m ≤ 64 for the codec). */
  private static final int MAX_POINTERS = 256;

  private final CpuKernels fallback;
  private final MethodHandle initTables;
  private final MethodHandle encodeData;
  private final ThreadLocal<Pointers> pointers =
      ThreadLocal.withInitial(() -> new Pointers(Arena.ofAuto()));

  private IsalKernels(CpuKernels fallback, MethodHandle initTables, MethodHandle encodeData) {
    this.fallback = fallback;
    this.initTables = initTables;
    this.encodeData = encodeData;
  }

  /**
   * Loads {@code library} (a name the dynamic linker resolves, or a path), binds its two
   * functions and checks one encode against {@code fallback} byte for byte.
   *
   * @throws IllegalStateException saying why ISA-L cannot be used
   */
  static IsalKernels load(String library, CpuKernels fallback) {
    SymbolLookup lookup;
    try {
      lookup = SymbolLookup.libraryLookup(library, Arena.global());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(library + " was not found by the dynamic linker (Debian:"
          + " apt-get install libisal2)", e);
    }
    Linker linker = Linker.nativeLinker();
    MethodHandle init = linker.downcallHandle(find(lookup, library, "ec_init_tables"),
        FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    MethodHandle encode = linker.downcallHandle(find(lookup, library, "ec_encode_data"),
        FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    IsalKernels k = new IsalKernels(fallback, init, encode);
    k.checkAgainstFallback();
    return k;
  }

  private static MemorySegment find(SymbolLookup lookup, String library, String symbol) {
    return lookup.find(symbol).orElseThrow(
        () -> new IllegalStateException(library + " has no symbol " + symbol));
  }

  @Override
  String name() {
    return "cpu-isal+" + fallback.name().replaceFirst("^cpu-", "");
  }

  @Override
  int laneWidth() {
    return fallback.laneWidth();
  }

  @Override
  GfProgram compile(GfMatrix m) {
    return new IsalProgram(m, laneWidth(), initTables);
  }

  @Override
  void xor(ByteBuffer[] in, int[] map, ByteBuffer out, int len) {
    fallback.xor(in, map, out, len);
  }

  @Override
  void pq(ByteBuffer[] in, int k, ByteBuffer p, ByteBuffer q, int len) {
    fallback.pq(in, k, p, q, len);
  }

  @Override
  void delta(
      GfProgram column, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len) {
    fallback.delta(column, oldData, newData, parity, len);
  }

  @Override
  void apply(
      GfProgram prog, ByteBuffer[] in, int[] inMap, ByteBuffer[] out, int[] outMap, int len) {
    if (!(prog instanceof IsalProgram isal) || !direct(in, inMap, prog.cols)
        || !direct(out, outMap, prog.rows)) {
      fallback.apply(prog, in, inMap, out, outMap, len);
      return;
    }
    Pointers p = pointers.get();
    for (int j = 0; j < prog.cols; j++) {
      p.in.setAtIndex(JAVA_LONG, j, MemorySegment.ofBuffer(in[inMap[j]]).address());
    }
    for (int r = 0; r < prog.rows; r++) {
      p.out.setAtIndex(JAVA_LONG, r, MemorySegment.ofBuffer(out[outMap[r]]).address());
    }
    try {
      encodeData.invokeExact(len, prog.cols, prog.rows, isal.tables, p.in, p.out);
    } catch (Throwable t) {
      throw new IllegalStateException("ec_encode_data failed", t);
    } finally {
      // ISA-L holds raw addresses: the buffers (and their native memory) must outlive the call
      Reference.reachabilityFence(in);
      Reference.reachabilityFence(out);
    }
  }

  private static boolean direct(ByteBuffer[] buffers, int[] map, int n) {
    for (int i = 0; i < n; i++) {
      if (!buffers[map[i]].isDirect()) {
        return false;
      }
    }
    return true;
  }

  /**
   * One Reed-Solomon encode of random bytes (lengths that cover ISA-L's vector and tail paths)
   * here and on the fallback kernels; a library that disagrees is not used.
   */
  private void checkAgainstFallback() {
    int k = 5;
    int m = 3;
    int[][] rows = new int[m][k];
    SplittableRandom rnd = new SplittableRandom(0x15A1L);
    for (int r = 0; r < m; r++) {
      for (int j = 0; j < k; j++) {
        rows[r][j] = 1 + rnd.nextInt(255);
      }
    }
    GfMatrix matrix = GfMatrix.of(rows);
    GfProgram mine = compile(matrix);
    GfProgram theirs = fallback.compile(matrix);
    int[] inMap = {0, 1, 2, 3, 4};
    int[] outMap = {0, 1, 2};
    for (int len : new int[] {1, 31, 64, 1000, 4096 + 7}) {
      ByteBuffer[] data = new ByteBuffer[k];
      for (int j = 0; j < k; j++) {
        data[j] = ByteBuffer.allocateDirect(len);
        for (int i = 0; i < len; i++) {
          data[j].put(i, (byte) rnd.nextInt(256));
        }
      }
      ByteBuffer[] a = new ByteBuffer[m];
      ByteBuffer[] b = new ByteBuffer[m];
      for (int r = 0; r < m; r++) {
        a[r] = ByteBuffer.allocateDirect(len);
        b[r] = ByteBuffer.allocateDirect(len);
      }
      apply(mine, data, inMap, a, outMap, len);
      fallback.apply(theirs, data, inMap, b, outMap, len);
      for (int r = 0; r < m; r++) {
        if (!a[r].equals(b[r])) {
          throw new IllegalStateException("ec_encode_data's parity row " + r + " of a " + len
              + "-byte RS 5+3 encode differs from the " + fallback.name() + " kernels'");
        }
      }
    }
  }

  /** A program with ISA-L's expanded tables (32 bytes per coefficient) in native memory. */
  private static final class IsalProgram extends GfProgram {
    final MemorySegment tables;

    IsalProgram(GfMatrix m, int laneWidth, MethodHandle initTables) {
      super(m, laneWidth);
      Arena arena = Arena.ofAuto();
      MemorySegment coefficients = arena.allocate(Math.max(1, coef.length));
      MemorySegment.copy(coef, 0, coefficients, JAVA_BYTE, 0, coef.length);
      this.tables = arena.allocate(32L * rows * cols, 64);
      try {
        initTables.invokeExact(cols, rows, coefficients, tables);
      } catch (Throwable t) {
        throw new IllegalStateException("ec_init_tables failed", t);
      }
    }
  }

  /** A thread's arrays of shard addresses, one per side of {@code ec_encode_data}. */
  private static final class Pointers {
    final MemorySegment in;
    final MemorySegment out;

    Pointers(Arena arena) {
      in = arena.allocate(JAVA_LONG, MAX_POINTERS);
      out = arena.allocate(JAVA_LONG, MAX_POINTERS);
    }
  }
}
