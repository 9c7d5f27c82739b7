package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.codec.CodecGeometry;

/**
 * A child JVM of {@link IsalCpuCodecTest}, whose ISA-L library name points nowhere: prints the
 * what asking for ISA-L by name does, then the implementation AUTO chose and whether ISA-L is
 * available, as the last line.
 */
public final class IsalFallbackProbe {
  private IsalFallbackProbe() {}

  public static void main(String[] args) {
    try {
      CpuParityCodec.create(CodecGeometry.raid5(3), CpuParityCodec.Kernels.ISAL);
      System.out.println("kernels isal: created");
    } catch (IllegalStateException e) {
      System.out.println("kernels isal: " + e.getMessage());
    }
    String implementation = CpuParityCodec.create(CodecGeometry.reedSolomon(4, 2)).implementation();
    System.out.println(implementation + (CpuParityCodec.isalAvailable() ? " available" : " unavailable"));
  }
}
