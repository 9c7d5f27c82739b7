package io.parityfs.raid.codec.cpu;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * SIMD kernels on the Java Vector API at the platform's preferred width (512 bits with
 * AVX-512, 256 with AVX2, 128 with NEON).
 *
 * <p>A GF(2^8) product {@code c * x} is two 16-entry table look-ups, {@code lo[x & 15] ^
 * hi[x >>> 4]}, done for a whole vector by {@code selectFrom} (vpshufb/vpermb). The matrix
 * apply keeps up to four output accumulators in registers and streams each input vector once per
 * group of four rows, as ISA-L's {@code gf_4vect_dot_prod} does; wider matrices are cut into
 * groups and processed in 16 KiB column blocks so the inputs stay in L1/L2 between groups.
 *
 * <p>The species is a {@code static final} constant and the only vector width in the JVM: both
 * matter to C2 (a species passed around, or mixed widths, cost 4-20x on JDK 17).
 *
 * <p>This class must only be loaded after checking that {@code jdk.incubator.vector} is in the
 * boot layer; {@link CpuParityCodec} does.
 */
final class VectorKernels extends CpuKernels {
  static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
  static final int V = S.length();
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();
  private static final int BLOCK = 16 * 1024;
  private static final ByteVector ZERO = ByteVector.zero(S);
  private static final ByteVector REDUCE = ByteVector.broadcast(S, (byte) 0x1d);

  static final VectorKernels INSTANCE = new VectorKernels();

  private VectorKernels() {}

  @Override
  String name() {
    return "cpu-vector(" + S.vectorBitSize() + "-bit)";
  }

  @Override
  int laneWidth() {
    return V;
  }

  /**
   * JDK 17 and 18 load vectors from ByteBuffers directly; JDK 19 replaced those methods with
   * MemorySegment ones. The code is compiled for 17, so on 19+ the segment methods are reached
   * through constant method handles (which C2 inlines): {@code MemorySegment.ofBuffer(b)} is
   * the window position..limit, so offsets there are relative to the position.
   */
  private static final boolean BUFFER_API = hasBufferApi();
  private static final MethodHandle SEGMENT_LOAD;
  private static final MethodHandle SEGMENT_STORE;

  static {
    MethodHandle load = null;
    MethodHandle store = null;
    if (!BUFFER_API) {
      try {
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
        MethodHandle ofBuffer = l.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class))
            .asType(MethodType.methodType(segment, ByteBuffer.class));
        MethodHandle from = l.findStatic(ByteVector.class, "fromMemorySegment",
            MethodType.methodType(ByteVector.class, VectorSpecies.class, segment, long.class, ByteOrder.class));
        load = MethodHandles.filterArguments(
            MethodHandles.insertArguments(MethodHandles.insertArguments(from, 3, ORDER), 0, S), 0, ofBuffer);
        MethodHandle into = l.findVirtual(ByteVector.class, "intoMemorySegment",
            MethodType.methodType(void.class, segment, long.class, ByteOrder.class));
        store = MethodHandles.filterArguments(MethodHandles.insertArguments(into, 3, ORDER), 1, ofBuffer);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("this JDK's Vector API has neither ByteBuffer nor MemorySegment access", e);
      }
    }
    SEGMENT_LOAD = load;
    SEGMENT_STORE = store;
  }

  private static boolean hasBufferApi() {
    try {
      ByteVector.class.getMethod("fromByteBuffer", VectorSpecies.class, ByteBuffer.class, int.class, ByteOrder.class);
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  private static ByteVector load(ByteBuffer b, int i) {
    if (!BUFFER_API && b.hasArray()) {
      return ByteVector.fromArray(S, b.array(), b.arrayOffset() + b.position() + i);
    }
    if (BUFFER_API) {
      return ByteVector.fromByteBuffer(S, b, b.position() + i, ORDER);
    }
    try {
      return (ByteVector) SEGMENT_LOAD.invokeExact(b, (long) i);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static void store(ByteVector v, ByteBuffer b, int i) {
    if (!BUFFER_API && b.hasArray()) {
      v.intoArray(b.array(), b.arrayOffset() + b.position() + i);
      return;
    }
    if (BUFFER_API) {
      v.intoByteBuffer(b, b.position() + i, ORDER);
      return;
    }
    try {
      SEGMENT_STORE.invokeExact(v, b, (long) i);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  /** {@code c * x} from the widened nibble tables at {@code t} / {@code t + V}. */
  private static ByteVector mul(ByteVector lo, ByteVector hi, byte[] tables, int t) {
    return lo.selectFrom(ByteVector.fromArray(S, tables, t))
        .lanewise(VectorOperators.XOR, hi.selectFrom(ByteVector.fromArray(S, tables, t + V)));
  }

  private static ByteVector lowNibbles(ByteVector v) {
    return v.and((byte) 0x0f);
  }

  /**
   * x86 has no byte shift: shifting 16-bit lanes (one vpsrlw) and masking gives the same high
   * nibbles as a byte-lane shift, which C2 would widen to shorts and pack back.
   */
  private static ByteVector highNibbles(ByteVector v) {
    return v.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes().and((byte) 0x0f);
  }

  @Override
  void xor(ByteBuffer[] in, int[] map, ByteBuffer out, int len) {
    int end = S.loopBound(len);
    int n = map.length;
    for (int i = 0; i < end; i += V) {
      ByteVector acc = load(in[map[0]], i);
      for (int j = 1; j < n; j++) {
        acc = acc.lanewise(VectorOperators.XOR, load(in[map[j]], i));
      }
      store(acc, out, i);
    }
    ScalarKernels.xorRange(in, map, out, end, len);
  }

  @Override
  void pq(ByteBuffer[] in, int k, ByteBuffer p, ByteBuffer q, int len) {
    int end = S.loopBound(len);
    for (int i = 0; i < end; i += V) {
      ByteVector pv = load(in[k - 1], i);
      ByteVector qv = pv;
      for (int j = k - 2; j >= 0; j--) {
        ByteVector v = load(in[j], i);
        pv = pv.lanewise(VectorOperators.XOR, v);
        // Q = Q * 2 + v: shift left, reduce by 0x1d where the top bit was set.
        qv = qv.add(qv)
            .lanewise(VectorOperators.XOR, REDUCE.blend(ZERO, qv.compare(VectorOperators.GE, (byte) 0)))
            .lanewise(VectorOperators.XOR, v);
      }
      store(pv, p, i);
      store(qv, q, i);
    }
    ScalarKernels.pqRange(in, k, p, q, end, len);
  }

  @Override
  void apply(GfProgram prog, ByteBuffer[] in, int[] inMap, ByteBuffer[] out, int[] outMap, int len) {
    int end = S.loopBound(len);
    if (prog.rows == 1 && prog.xorRow[0]) {
      xor(in, inMap, out[outMap[0]], len);
      return;
    }
    int block = prog.rows <= 4 ? end : BLOCK;
    for (int from = 0; from < end; from += block) {
      int to = Math.min(end, from + block);
      for (int r = 0, n; r < prog.rows; r += n) {
        n = Math.min(4, prog.rows - r);
        GROUPS[n].run(prog, r, in, inMap, out, outMap, from, to);
      }
    }
    ScalarKernels.applyRange(prog, in, inMap, out, outMap, end, len);
  }

  /**
   * The kernel for a group of one to four rows. The dispatch in {@link #apply} goes through this
   * abstract type on purpose: the call site sees several classes, so C2 compiles each kernel as
   * its own method instead of inlining all four into the dispatcher, where the combined size can
   * exhaust the inlining budget and leave some vector operations un-intrinsified (measured: the
   * RAID-6/RS rebuild kernel at 2 GB/s instead of 10 after the other kernels had run).
   */
  private abstract static class RowGroup {
    abstract void run(GfProgram prog, int row, ByteBuffer[] in, int[] map, ByteBuffer[] out,
        int[] outMap, int from, int to);
  }

  private static final class OneRow extends RowGroup {
    @Override
    void run(GfProgram p, int r, ByteBuffer[] in, int[] map, ByteBuffer[] out, int[] om, int from, int to) {
      apply1(p, r, in, map, out[om[r]], from, to);
    }
  }

  private static final class TwoRows extends RowGroup {
    @Override
    void run(GfProgram p, int r, ByteBuffer[] in, int[] map, ByteBuffer[] out, int[] om, int from, int to) {
      apply2(p, r, in, map, out[om[r]], out[om[r + 1]], from, to);
    }
  }

  private static final class ThreeRows extends RowGroup {
    @Override
    void run(GfProgram p, int r, ByteBuffer[] in, int[] map, ByteBuffer[] out, int[] om, int from, int to) {
      apply3(p, r, in, map, out[om[r]], out[om[r + 1]], out[om[r + 2]], from, to);
    }
  }

  private static final class FourRows extends RowGroup {
    @Override
    void run(GfProgram p, int r, ByteBuffer[] in, int[] map, ByteBuffer[] out, int[] om, int from, int to) {
      apply4(p, r, in, map, out[om[r]], out[om[r + 1]], out[om[r + 2]], out[om[r + 3]], from, to);
    }
  }

  private static final RowGroup[] GROUPS = {null, new OneRow(), new TwoRows(), new ThreeRows(), new FourRows()};

  private static void apply4(
      GfProgram prog, int row, ByteBuffer[] in, int[] map,
      ByteBuffer o0, ByteBuffer o1, ByteBuffer o2, ByteBuffer o3, int from, int to) {
    byte[] t = prog.lanes;
    int cols = prog.cols;
    int rowStride = cols * 2 * V;
    int base = prog.laneOffset(row, 0);
    for (int i = from; i < to; i += V) {
      ByteVector a0 = ByteVector.zero(S);
      ByteVector a1 = a0;
      ByteVector a2 = a0;
      ByteVector a3 = a0;
      for (int j = 0, tj = base; j < cols; j++, tj += 2 * V) {
        ByteVector v = load(in[map[j]], i);
        ByteVector lo = lowNibbles(v);
        ByteVector hi = highNibbles(v);
        a0 = a0.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj));
        a1 = a1.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + rowStride));
        a2 = a2.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + 2 * rowStride));
        a3 = a3.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + 3 * rowStride));
      }
      store(a0, o0, i);
      store(a1, o1, i);
      store(a2, o2, i);
      store(a3, o3, i);
    }
  }

  private static void apply3(
      GfProgram prog, int row, ByteBuffer[] in, int[] map,
      ByteBuffer o0, ByteBuffer o1, ByteBuffer o2, int from, int to) {
    byte[] t = prog.lanes;
    int cols = prog.cols;
    int rowStride = cols * 2 * V;
    int base = prog.laneOffset(row, 0);
    for (int i = from; i < to; i += V) {
      ByteVector a0 = ByteVector.zero(S);
      ByteVector a1 = a0;
      ByteVector a2 = a0;
      for (int j = 0, tj = base; j < cols; j++, tj += 2 * V) {
        ByteVector v = load(in[map[j]], i);
        ByteVector lo = lowNibbles(v);
        ByteVector hi = highNibbles(v);
        a0 = a0.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj));
        a1 = a1.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + rowStride));
        a2 = a2.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + 2 * rowStride));
      }
      store(a0, o0, i);
      store(a1, o1, i);
      store(a2, o2, i);
    }
  }

  private static void apply2(
      GfProgram prog, int row, ByteBuffer[] in, int[] map, ByteBuffer o0, ByteBuffer o1,
      int from, int to) {
    byte[] t = prog.lanes;
    int cols = prog.cols;
    int rowStride = cols * 2 * V;
    int base = prog.laneOffset(row, 0);
    for (int i = from; i < to; i += V) {
      ByteVector a0 = ByteVector.zero(S);
      ByteVector a1 = a0;
      for (int j = 0, tj = base; j < cols; j++, tj += 2 * V) {
        ByteVector v = load(in[map[j]], i);
        ByteVector lo = lowNibbles(v);
        ByteVector hi = highNibbles(v);
        a0 = a0.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj));
        a1 = a1.lanewise(VectorOperators.XOR, mul(lo, hi, t, tj + rowStride));
      }
      store(a0, o0, i);
      store(a1, o1, i);
    }
  }

  private static void apply1(
      GfProgram prog, int row, ByteBuffer[] in, int[] map, ByteBuffer o0, int from, int to) {
    byte[] t = prog.lanes;
    int cols = prog.cols;
    int base = prog.laneOffset(row, 0);
    for (int i = from; i < to; i += V) {
      ByteVector a0 = ByteVector.zero(S);
      for (int j = 0, tj = base; j < cols; j++, tj += 2 * V) {
        ByteVector v = load(in[map[j]], i);
        a0 = a0.lanewise(VectorOperators.XOR, mul(lowNibbles(v), highNibbles(v), t, tj));
      }
      store(a0, o0, i);
    }
  }

  @Override
  void delta(GfProgram column, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len) {
    int end = S.loopBound(len);
    byte[] t = column.lanes;
    int rows = column.rows;
    for (int i = 0; i < end; i += V) {
      ByteVector d = load(oldData, i).lanewise(VectorOperators.XOR, load(newData, i));
      ByteVector lo = lowNibbles(d);
      ByteVector hi = highNibbles(d);
      for (int r = 0; r < rows; r++) {
        ByteBuffer p = parity[r];
        ByteVector add = column.xorRow[r] ? d : mul(lo, hi, t, column.laneOffset(r, 0));
        store(load(p, i).lanewise(VectorOperators.XOR, add), p, i);
      }
    }
    ScalarKernels.deltaRange(column, oldData, newData, parity, end, len);
  }
}
