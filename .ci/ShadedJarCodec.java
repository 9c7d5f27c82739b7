import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;

/**
 * Run by .ci/run with the Hadoop client's shaded jar as its class path: prints the kernels the CPU
 * codec chose there, so CI sees that the shaded jar keeps the multi-release ISA-L classes.
 */
public class ShadedJarCodec {
  public static void main(String[] args) {
    System.out.println(CpuParityCodec.create(CodecGeometry.reedSolomon(10, 4)).implementation());
  }
}
