package io.parityfs.raid.bench;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.Scheme;
import java.util.List;

/**
 * One row of the benchmark: a ParityFS operation on a geometry and the Hadoop coder it is timed
 * against. {@code decode2} rows time the reconstruction of data shards 0 and 1 from the
 * survivors; the others time a full-stripe encode.
 *
 * @param id the metric stem, e.g. {@code rs10_4_encode} ({@code <id>_gbps} in the JSON)
 * @param label what the table prints
 * @param geometry the ParityFS geometry
 * @param decode2 whether the row times reconstruction of shards 0 and 1
 * @param hadoopLabel the Hadoop coder, as the table prints it
 */
record BenchCase(
    String id, String label, CodecGeometry geometry, boolean decode2, String hadoopLabel) {

  /** Every case, in the order they run. */
  static final List<BenchCase> ALL =
      List.of(
          new BenchCase("xor15_1", "XOR 15+1", CodecGeometry.raid5(15), false, "XOR 15+1"),
          new BenchCase(
              "pq14_2", "P+Q 14+2", CodecGeometry.raid6(14), false, "RS 14+2 (no P+Q coder)"),
          new BenchCase("rs8_2", "RS 8+2", CodecGeometry.reedSolomon(8, 2), false, "RS 8+2"),
          new BenchCase("rs6_3", "RS 6+3", CodecGeometry.reedSolomon(6, 3), false, "RS 6+3"),
          new BenchCase(
              "rs10_4_encode", "RS 10+4 encode", CodecGeometry.reedSolomon(10, 4), false,
              "RS 10+4"),
          new BenchCase(
              "rs10_4_decode2", "RS 10+4 rebuild 2 data", CodecGeometry.reedSolomon(10, 4), true,
              "RS 10+4 decode"));

  /** The shards a {@code decode2} case loses and restores. */
  static final int[] LOST = {0, 1};

  int k() {
    return geometry.k();
  }

  int m() {
    return geometry.m();
  }

  /** Whether Hadoop's coder here is XOR (else Reed-Solomon). */
  boolean hadoopXor() {
    return geometry.scheme() == Scheme.XOR;
  }

  /** 1 MiB blocks one stripe of this case occupies: k + m, plus the two rebuild outputs. */
  int blocksPerStripe() {
    return k() + m() + (decode2 ? LOST.length : 0);
  }
}
