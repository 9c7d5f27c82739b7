package io.parityfs.raid.codec.gpu.check;

import io.parityfs.raid.codec.CodecGeometry;
import java.util.List;

/**
 * One row of the self-check's throughput tables: the geometries of the CPU benchmark
 * ({@code docs/benchmarks/codec-cpu.json}), with the same metric stems.
 *
 * @param id the metric stem, e.g. {@code rs10_4_encode}
 * @param label what the tables print
 * @param geometry the geometry
 * @param lost the data shards a rebuild case restores (empty for an encode case)
 */
record ThroughputCase(String id, String label, CodecGeometry geometry, int[] lost) {

  /** The CPU benchmark's six cases, in its order. */
  static final List<ThroughputCase> ALL = List.of(
      new ThroughputCase("xor15_1", "XOR 15+1", CodecGeometry.raid5(15), new int[0]),
      new ThroughputCase("pq14_2", "P+Q 14+2", CodecGeometry.raid6(14), new int[0]),
      new ThroughputCase("rs8_2", "RS 8+2", CodecGeometry.reedSolomon(8, 2), new int[0]),
      new ThroughputCase("rs6_3", "RS 6+3", CodecGeometry.reedSolomon(6, 3), new int[0]),
      new ThroughputCase("rs10_4_encode", "RS 10+4 encode", CodecGeometry.reedSolomon(10, 4),
          new int[0]),
      new ThroughputCase("rs10_4_decode2", "RS 10+4 rebuild 2 data",
          CodecGeometry.reedSolomon(10, 4), new int[] {0, 1}));

  /** The case of the headline figures and the tenant window. */
  static final ThroughputCase RS10_4_ENCODE = ALL.get(4);

  boolean rebuild() {
    return lost.length > 0;
  }

  /** Outputs per stripe: the parity shards, or the restored ones. */
  int outputs() {
    return rebuild() ? lost.length : geometry.m();
  }

  /** Shard buffers one host stripe occupies: k + m, plus the restored shards of a rebuild. */
  int blocksPerStripe() {
    return geometry.shards() + lost.length;
  }

  /** Bit mask of the shards a rebuild still has. */
  long availableMask() {
    long all = (1L << geometry.shards()) - 1;
    for (int t : lost) {
      all &= ~(1L << t);
    }
    return all;
  }
}
