package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.codec.AbstractParityCodec;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ReconstructionPlan;
import io.parityfs.raid.codec.ReconstructionPlanCache;
import io.parityfs.raid.gf.GfMatrix;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link io.parityfs.raid.codec.ParityCodec} on the CPU. RAID-5 encodes with the XOR kernel,
 * RAID-6 with Horner's rule for Q (a multiply by 2 per data shard, as Linux md does), and
 * Reed-Solomon with a GF(2^8) matrix apply; every reconstruction is a matrix apply of a cached
 * {@link ReconstructionPlan}.
 *
 * <p>The kernels, best first: Intel ISA-L's {@code ec_encode_data} through the JDK's foreign
 * function API for the matrix apply on direct buffers (JDK 22+ with {@code libisal.so.2}
 * installed; {@code IsalKernels}, compiled for 22 into the jar's {@code META-INF/versions/22}),
 * the Vector API, and portable scalar loops.
 *
 * <p>Thread-safe and allocation-free after the first reconstruction of each erasure pattern.
 */
public final class CpuParityCodec extends AbstractParityCodec {
  /**
   * System property that overrides {@link Kernels#AUTO}: "auto", "isal", "vector" or "scalar".
   */
  public static final String KERNELS_PROPERTY = "parityfs.codec.cpu.kernels";

  /** System property naming the ISA-L shared library (default {@code libisal.so.2}). */
  public static final String ISAL_LIBRARY_PROPERTY = "parityfs.codec.isal.library";

  /** The first JDK whose foreign function API is final (JEP 454). */
  static final int ISAL_MIN_JDK = 22;

  /** Which kernels to run. */
  public enum Kernels {
    /** ISA-L when it loads, else the Vector API when {@code jdk.incubator.vector} is present, else scalar. */
    AUTO,
    /**
     * ISA-L for every matrix apply (Reed-Solomon encode, every reconstruction) on direct
     * buffers, the Vector API (or scalar) kernels for the rest; fails at construction when ISA-L
     * cannot be loaded.
     */
    ISAL,
    /** The Vector API, or fail at construction if it is absent. */
    VECTOR,
    /** The portable scalar loops. */
    SCALAR
  }

  private static final Logger LOG = LoggerFactory.getLogger(CpuParityCodec.class);
  private static volatile String vectorUnavailableReason;
  private static volatile String isalUnavailableReason;

  private final CpuKernels kernels;
  private final GfProgram encodeProgram;
  private final GfProgram[] deltaPrograms;
  private final int[] dataMap;
  private final int[] parityMap;
  private final ReconstructionPlanCache plans;

  private CpuParityCodec(CodecGeometry g, CpuKernels kernels) {
    super(g);
    this.kernels = kernels;
    GfMatrix parity = g.parityMatrix();
    this.encodeProgram = kernels.compile(parity);
    this.deltaPrograms = new GfProgram[g.k()];
    for (int j = 0; j < g.k(); j++) {
      int[][] col = new int[g.m()][1];
      for (int r = 0; r < g.m(); r++) {
        col[r][0] = parity.get(r, j);
      }
      deltaPrograms[j] = kernels.compile(GfMatrix.of(col));
    }
    this.dataMap = sequence(g.k());
    this.parityMap = sequence(g.m());
    this.plans = new ReconstructionPlanCache(g, kernels::compile);
  }

  /** A codec with the best kernels this JVM offers (see {@link #KERNELS_PROPERTY}). */
  public static CpuParityCodec create(CodecGeometry geometry) {
    return create(geometry, Kernels.AUTO);
  }

  /**
   * A codec with the given kernels.
   *
   * @throws IllegalStateException for {@link Kernels#VECTOR} when the Vector API is unavailable
   */
  public static CpuParityCodec create(CodecGeometry geometry, Kernels kind) {
    return new CpuParityCodec(geometry, kernels(kind));
  }

  /** Whether the Vector API kernels can run in this JVM. */
  public static boolean vectorAvailable() {
    return vectorKernels() != null;
  }

  /** Why the Vector API kernels cannot run, or null when they can. */
  public static String vectorUnavailableReason() {
    vectorKernels();
    return vectorUnavailableReason;
  }

  /** Whether the ISA-L kernels can run in this JVM. */
  public static boolean isalAvailable() {
    return isalKernels() != null;
  }

  /** Why the ISA-L kernels cannot run, or null when they can. */
  public static String isalUnavailableReason() {
    isalKernels();
    return isalUnavailableReason;
  }

  private static CpuKernels kernels(Kernels kind) {
    if (kind == Kernels.AUTO) {
      String p = System.getProperty(KERNELS_PROPERTY, "auto").trim().toUpperCase(Locale.ROOT);
      try {
        kind = Kernels.valueOf(p);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(KERNELS_PROPERTY + " (" + p.toLowerCase(Locale.ROOT)
            + ") must be auto, isal, vector or scalar");
      }
    }
    if (kind == Kernels.SCALAR) {
      return ScalarKernels.INSTANCE;
    }
    if (kind == Kernels.AUTO || kind == Kernels.ISAL) {
      CpuKernels isal = isalKernels();
      if (isal != null) {
        return isal;
      }
      if (kind == Kernels.ISAL) {
        throw new IllegalStateException("ISA-L kernels unavailable: " + isalUnavailableReason);
      }
    }
    CpuKernels v = vectorKernels();
    if (v != null) {
      return v;
    }
    if (kind == Kernels.VECTOR) {
      throw new IllegalStateException("vector kernels unavailable: " + vectorUnavailableReason);
    }
    return ScalarKernels.INSTANCE;
  }

  private static volatile CpuKernels vector;
  private static volatile boolean probed;

  /** Probes once whether the Vector API is usable; caches the verdict. */
  private static CpuKernels vectorKernels() {
    if (!probed) {
      synchronized (CpuParityCodec.class) {
        if (!probed) {
          vector = probeVector();
          probed = true;
        }
      }
    }
    return vector;
  }

  private static volatile CpuKernels isal;
  private static volatile boolean isalProbed;

  /** Loads ISA-L once (after the Vector API probe, whose kernels it falls back on). */
  private static CpuKernels isalKernels() {
    if (!isalProbed) {
      CpuKernels fallback = vectorKernels();
      synchronized (CpuParityCodec.class) {
        if (!isalProbed) {
          isal = probeIsal(fallback != null ? fallback : ScalarKernels.INSTANCE);
          isalProbed = true;
        }
      }
    }
    return isal;
  }

  private static CpuKernels probeIsal(CpuKernels fallback) {
    int feature = Runtime.version().feature();
    String library = System.getProperty(ISAL_LIBRARY_PROPERTY, "libisal.so.2");
    if (feature < ISAL_MIN_JDK) {
      isalUnavailableReason = "the ISA-L kernels need JDK " + ISAL_MIN_JDK
          + "+ (the foreign function API); this is JDK " + feature;
    } else {
      try {
        Class<?> c = Class.forName(CpuParityCodec.class.getPackageName() + ".IsalKernels");
        CpuKernels k = (CpuKernels) c.getDeclaredMethod("load", String.class, CpuKernels.class)
            .invoke(null, library, fallback);
        LOG.info("CPU parity codec uses {} ({})", k.name(), library);
        return k;
      } catch (ClassNotFoundException e) {
        isalUnavailableReason = "this build has no ISA-L kernels (IsalKernels is compiled only"
            + " where a JDK 22+ javac was found, and loaded from a multi-release jar or"
            + " META-INF/versions/22 on the class path)";
      } catch (java.lang.reflect.InvocationTargetException e) {
        Throwable cause = e.getCause();
        isalUnavailableReason = "ISA-L (" + library + ") did not load: "
            + (cause.getMessage() != null ? cause.getMessage() : cause.toString());
      } catch (ReflectiveOperationException | LinkageError e) {
        isalUnavailableReason = "the ISA-L kernels failed to load: " + e;
      }
    }
    LOG.info("CPU parity codec does not use ISA-L: {}", isalUnavailableReason);
    return null;
  }

  private static CpuKernels probeVector() {
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      vectorUnavailableReason =
          "module jdk.incubator.vector is not loaded (start the JVM with "
              + "--add-modules jdk.incubator.vector)";
    } else {
      try {
        CpuKernels k = (CpuKernels) Class.forName(CpuParityCodec.class.getPackageName() + ".VectorKernels")
            .getDeclaredField("INSTANCE").get(null);
        if (k.laneWidth() >= 16) {
          return k;
        }
        vectorUnavailableReason = "the preferred vector is only " + k.laneWidth() + " bytes wide";
      } catch (ReflectiveOperationException | LinkageError e) {
        vectorUnavailableReason = "the Vector API failed to load: " + e;
      }
    }
    LOG.info("CPU parity codec uses scalar kernels: {}", vectorUnavailableReason);
    return null;
  }

  private static int[] sequence(int n) {
    int[] s = new int[n];
    for (int i = 0; i < n; i++) {
      s[i] = i;
    }
    return s;
  }

  @Override
  public String implementation() {
    return kernels.name();
  }

  @Override
  protected void doEncode(ByteBuffer[] data, ByteBuffer[] parity, int len) {
    switch (geometry().scheme()) {
      case XOR -> kernels.xor(data, dataMap, parity[0], len);
      case PQ -> kernels.pq(data, geometry().k(), parity[0], parity[1], len);
      case RS_CAUCHY -> kernels.apply(encodeProgram, data, dataMap, parity, parityMap, len);
    }
  }

  @Override
  protected void doReconstruct(
      ByteBuffer[] shards, int[] targets, long survivorMask, long targetMask, int len) {
    ReconstructionPlan plan = plans.get(survivorMask, targetMask);
    kernels.apply((GfProgram) plan.compiled(), shards, plan.survivors(), shards, plan.targets(), len);
  }

  @Override
  protected void doUpdateParity(
      int dataIndex, ByteBuffer oldData, ByteBuffer newData, ByteBuffer[] parity, int len) {
    kernels.delta(deltaPrograms[dataIndex], oldData, newData, parity, len);
  }
}
