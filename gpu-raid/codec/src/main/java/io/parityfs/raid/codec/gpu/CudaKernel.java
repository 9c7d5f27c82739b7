package io.parityfs.raid.codec.gpu;

/**
 * The kernels of {@code parity_kernels.cu} and their parameter lists, in declaration order. A
 * {@code POINTER} is a device address, an {@code INT} a C {@code int}, a {@code LONG} a C
 * {@code long long}.
 */
public enum CudaKernel {
  /** {@code pfs_xor(in, out, cols, words, stripes)}: out[s][0] = XOR of in[s][0..cols-1]. */
  XOR("pfs_xor", Arg.POINTER, Arg.POINTER, Arg.INT, Arg.LONG, Arg.LONG),
  /** {@code pfs_pq(in, out, k, words, stripes)}: out[s][0] = P, out[s][1] = Q. */
  PQ("pfs_pq", Arg.POINTER, Arg.POINTER, Arg.INT, Arg.LONG, Arg.LONG),
  /** {@code pfs_gf_apply(in, out, coef, rows, cols, words, stripes)}: out = coef x in. */
  GF_APPLY("pfs_gf_apply", Arg.POINTER, Arg.POINTER, Arg.POINTER, Arg.INT, Arg.INT, Arg.LONG,
      Arg.LONG),
  /** {@code pfs_delta(old, new, out, coef, rows, words, stripes)}: out[s][r] ^= coef[r]·Δ. */
  DELTA("pfs_delta", Arg.POINTER, Arg.POINTER, Arg.POINTER, Arg.POINTER, Arg.INT, Arg.LONG,
      Arg.LONG);

  /** The C type of one kernel parameter. */
  enum Arg { POINTER, INT, LONG }

  private final String symbol;
  private final Arg[] args;

  CudaKernel(String symbol, Arg... args) {
    this.symbol = symbol;
    this.args = args;
  }

  /** The {@code extern "C"} name in the module. */
  String symbol() {
    return symbol;
  }

  int arity() {
    return args.length;
  }

  Arg arg(int i) {
    return args[i];
  }
}
