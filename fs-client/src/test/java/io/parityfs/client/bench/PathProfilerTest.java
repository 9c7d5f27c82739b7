package io.parityfs.client.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The cost model's stage rules on stacks as async-profiler writes them (thread first, then root
 * to leaf): a CRC32C is a cell checksum under the array and a frame checksum elsewhere, on the
 * thread's side; kernel time goes by the kernel frames' subsystem; the JVM's threads by name.
 */
class PathProfilerTest {
  private static String stage(String stack) {
    return PathProfiler.stage(stack.split(";"));
  }

  @Test
  void checksumsAreCellOrFrameBySideAndCaller() {
    assertEquals("cell checksum", stage("[pfs-drive-0-1 tid=9];java/lang/Thread.run;"
        + "io/parityfs/raid/array/format/CellChecksums.compute;java/util/zip/CRC32C.update;"
        + "updateBytesCRC32C"));
    assertEquals("node: frame checksum", stage("[pfs-node-io-2 tid=7];io/netty/channel/nio/"
        + "NioEventLoop.run;io/parityfs/node/protocol/FrameDecoder.decode;updateBytesCRC32C"));
    assertEquals("client: frame checksum", stage("[pfs-client-io-1-1 tid=5];io/netty/channel/"
        + "nio/NioEventLoop.run;io/parityfs/node/protocol/FrameDecoder.decode;"
        + "updateBytesCRC32C"));
  }

  @Test
  void copiesAndCodecAndPackages() {
    assertEquals("client: copy", stage("[ckpt-1 tid=3];io/parityfs/hadoop/PfsOutputStream.write;"
        + "java/nio/ByteBuffer.put;jdk/internal/misc/Unsafe.copyMemory;"
        + "jlong_disjoint_arraycopy_avx3"));
    assertEquals("node: copy", stage("[pfs-node-worker-1 tid=4];io/parityfs/node/chunk/"
        + "ChunkWriter.write;jbyte_disjoint_arraycopy_avx3"));
    assertEquals("encode (parity)", stage("[pfs-node-worker-1 tid=4];io/parityfs/raid/array/"
        + "object/ObjectWriter.dispatch;io/parityfs/raid/codec/cpu/VectorKernels.pq"));
    assertEquals("benchmark: fill and compare", stage("[ckpt-2 tid=8];io/parityfs/client/bench/"
        + "Checkpoint.lambda$read$1;java/util/Arrays.equals;"
        + "jdk/internal/util/ArraysSupport.vectorizedMismatch"));
    assertEquals("metadata commit (ZooKeeper, Curator)", stage("[main-EventThread tid=2];"
        + "org/apache/zookeeper/ClientCnxn$EventThread.run"));
  }

  @Test
  void kernelTimeGoesBySubsystem() {
    assertEquals("kernel: network (loopback TCP)", stage("[pfs-client-io-1-1 tid=5];"
        + "sun/nio/ch/SocketDispatcher.write0;__x64_sys_write_[k];ksys_write_[k];"
        + "sock_write_iter_[k];tcp_sendmsg_[k];_copy_from_iter_[k]"));
    assertEquals("kernel: files (page cache, fsync, journal)", stage("[pfs-drive-1-1 tid=6];"
        + "sun/nio/ch/FileDispatcherImpl.force0;__x64_sys_fsync_[k];ext4_sync_file_[k];"
        + "finish_task_switch.isra.0_[k]"));
    assertEquals("kernel: scheduling, futex, epoll", stage("[pfs-node-io-1 tid=7];"
        + "sun/nio/ch/EPoll.wait;__x64_sys_epoll_wait_[k];do_epoll_wait_[k];schedule_[k]"));
    assertEquals("kernel: page faults, memory", stage("[ckpt-1 tid=3];"
        + "asm_exc_page_fault_[k];handle_mm_fault_[k];clear_page_erms_[k]"));
  }

  @Test
  void theJvmsOwnThreads() {
    assertEquals("JVM: GC", stage("[GC Thread#0 tid=11];clear_page_erms_[k]"));
    assertEquals("JVM: JIT compilers", stage("[C2 CompilerThread0 tid=12];PhaseChaitin::Split"));
    assertEquals("JVM: other threads", stage("[VM Periodic Task Thread tid=13];os::sleep"));
    assertTrue(PathProfiler.STAGES.contains(stage("[pfs-node-worker-1 tid=4];[unknown]")));
  }
}
