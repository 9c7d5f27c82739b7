package io.parityfs.raid.codec.cpu;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;
import java.nio.ByteBuffer;

/**
 * Run in a child JVM by {@link ScalarFallbackTest}: prints the kernels the default codec chose
 * and the RAID-6 parity of a fixed stripe, so the parent can check both.
 */
public final class ScalarFallbackProbe {
  private ScalarFallbackProbe() {}

  public static void main(String[] args) {
    ParityCodec c = CpuParityCodec.create(CodecGeometry.raid6(3));
    ByteBuffer[] data = {
      ByteBuffer.wrap(new byte[] {1, 2, 3}),
      ByteBuffer.wrap(new byte[] {4, 5, 6}),
      ByteBuffer.wrap(new byte[] {7, 8, (byte) 0x90})
    };
    ByteBuffer[] parity = {ByteBuffer.allocate(3), ByteBuffer.allocate(3)};
    c.encode(data, parity);
    StringBuilder sb = new StringBuilder(c.implementation());
    for (ByteBuffer p : parity) {
      for (byte b : p.array()) {
        sb.append(String.format(" %02x", b));
      }
    }
    System.out.println(sb);
  }
}
