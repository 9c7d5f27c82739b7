package io.parityfs.client;

import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.Across;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.node.protocol.ChunkStat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The members of groups across nodes, one at a time, with their tags (docs/across-nodes.md: a
 * member is one chunk of a group on its target, a tag its (writer generation, sequence)): what
 * the keeper ({@code io.parityfs.keeper}: catch-up, seals, re-protection, drain, rebalance,
 * fsck's checks) needs of a client's chunk transfers, and no more. {@link ParityClient#memberIo()}
 * gives the client's own, which every stream of the client shares; the data path itself does not
 * go through this interface.
 *
 * <p>From {@link ChunkService}: {@code list} a target's chunks a page at a time, {@code delete}
 * one (fenced as a writer generation, or not). Here: {@link #statMember stat}, {@link #readMember
 * read} and {@link #writeMember write} one member with its tag, whether a target is {@link
 * #healthy} now, a data chunk {@link #read} as readers read it, the {@link #groupCodec parity
 * code} of a policy, the next round {@link #nextSequence sequence}, a member {@link
 * #rebuildOnNode rebuilt by its node}, and the {@link #fanOut pool} to fan transfers out on.
 *
 * <p><b>Failures</b> are {@link ClientException}s whose status is the node's answer; a write or
 * delete refused because a newer writer generation of the file exists is a {@link
 * FencedException}; {@link #targetDown} tells a failure that only says the target is away.
 * Implementations are thread-safe.
 */
public interface MemberIo extends ChunkService {
  /**
   * Whether {@code target} is worth asking now: the registry has it online and no transfer to
   * it failed in the last seconds. A hint, not a promise: a healthy target may still fail.
   */
  boolean healthy(String target);

  /**
   * Whether {@code target} is worth a stat for a check: the registry has it online, even if a
   * transfer to it failed lately (an answer clears that); {@link #healthy} by default.
   */
  default boolean reachable(String target) {
    return healthy(target);
  }

  /**
   * The stat of chunk {@code index} of the file on {@code target} (its version's length and
   * group tag); empty when the target has no such chunk or cannot be reached now.
   */
  Optional<ChunkStat> statMember(String target, long fileId, int index) throws IOException;

  /**
   * Reads chunk {@code index} on {@code target} from {@code offset} into {@code dst} (up to its
   * remaining bytes; fewer at the end of the chunk) and returns the stat of the version read
   * (its tag); empty when the target has no such chunk. A read of a version replaced meanwhile
   * is tried again, so one read returns bytes of one version.
   */
  Optional<ChunkStat> readMember(String target, long fileId, int index, long offset,
      ByteBuffer dst) throws IOException;

  /**
   * Stores {@code data} (its remaining bytes, not consumed) as the whole of chunk {@code index}
   * on {@code target}, tagged (generation, sequence), as writer {@code generation}.
   *
   * @throws FencedException when the target has seen a newer generation of the file
   */
  default void writeMember(String target, long fileId, long generation, long sequence,
      int index, ByteBuffer data) throws IOException {
    writeMember(target, fileId, generation, sequence, generation, index, data);
  }

  /**
   * {@link #writeMember(String, long, long, long, int, ByteBuffer)} with the tag (tagGeneration,
   * sequence), fenced as writer {@code generation}: a repairer joining a round an earlier writer
   * stored, with its exact tag (audit N1).
   */
  void writeMember(String target, long fileId, long generation, long sequence,
      long tagGeneration, int index, ByteBuffer data) throws IOException;

  /**
   * Reads data chunk {@code index} of a file from {@code offset} into {@code dst} (up to its
   * remaining bytes) as any reader reads it: from its target, or another copy, or decoded from
   * its group's other members; members {@code stale} (the file's repair record) names are never
   * read.
   *
   * @return the bytes read: fewer only at the end of the chunk
   */
  int read(long fileId, Layout layout, Repairs stale, int index, long offset, ByteBuffer dst)
      throws IOException;

  /** The next group sequence of this client's writes (docs/across-nodes.md §3). */
  long nextSequence();

  /** The parity code of an ec:K+M policy (the same instance for the same policy). */
  GroupCodec groupCodec(Across across);

  /**
   * One of the K members a node rebuilds a member from ({@link #rebuildOnNode}): member number
   * {@code member} of the group, chunk {@code index} on {@code target} with the round's tag and
   * {@code length} bytes; {@code target} null with length 0 for a data chunk past the end of
   * the file (known zeros).
   */
  record RebuildSource(int member, String target, int index, long length) {}

  /**
   * Asks the node of target {@code onto} to rebuild member {@code member} of an ec:K+M group
   * from {@code sources} itself and store it as chunk {@code index} with the round's tag
   * (tagGeneration, sequence), fenced as writer {@code generation} (REBUILD_MEMBER,
   * docs/across-nodes.md §5): the K sources go from their nodes to that node, not through this
   * client. Returns the bytes it stored, or -1 when its node cannot: the caller rebuilds the
   * member itself.
   *
   * @throws FencedException when the target has seen a newer generation of the file
   * @throws ClientException for any other failure (a source of another round: CONFLICT)
   */
  long rebuildOnNode(String onto, long fileId, long generation, long sequence,
      long tagGeneration, int index, int k, int m, int member, long length, long groupLength,
      List<RebuildSource> sources) throws IOException;

  /**
   * The pool for member transfers a caller fans out and waits for: its own, so a thread that
   * waits for them never waits on itself.
   */
  Executor fanOut();

  /**
   * Data chunk {@code index} of {@code f} whole, as far as its length reaches, read as readers
   * read it (decoded where its member is stale or its target down).
   *
   * @throws ClientException DATA_LOST when the chunk holds fewer bytes than the length says
   */
  default ByteBuffer readChunk(FileStatus f, long index) throws IOException {
    long chunkSize = f.layout().chunkSize();
    int len = (int) Math.min(chunkSize, f.length() - index * chunkSize);
    ByteBuffer buf = ByteBuffer.allocate(len);
    while (buf.hasRemaining()) {
      int n = read(f.id(), f.layout(), f.repairs(), (int) index, buf.position(), buf);
      if (n <= 0) {
        throw new ClientException(ClientStatus.DATA_LOST, f.path(), f.path() + ": chunk "
            + index + " holds fewer bytes than the file's length says");
      }
    }
    return buf.flip();
  }

  /**
   * Data chunks {@code first..first+present-1} of {@code f} ({@link #readChunk}) in parallel
   * on the {@link #fanOut} pool, into {@code k} entries (nulls after them): a group's data.
   */
  default ByteBuffer[] readData(FileStatus f, long first, int present, int k)
      throws IOException {
    List<CompletableFuture<ByteBuffer>> reads = new ArrayList<>();
    for (int j = 0; j < present; j++) {
      long index = first + j;
      reads.add(CompletableFuture.supplyAsync(() -> {
        try {
          return readChunk(f, index);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      }, fanOut()));
    }
    ByteBuffer[] data = new ByteBuffer[k];
    for (int j = 0; j < present; j++) {
      data[j] = join(reads.get(j));
    }
    return data;
  }

  /** {@code f}'s value; its failure's IOException cause thrown as such. */
  static <T> T join(CompletableFuture<T> f) throws IOException {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw e;
    }
  }

  /**
   * Whether a member write that failed so may be left out (its target is down or cannot take
   * it now), rather than fail the write: not a fenced writer, a full target, or a bad request.
   */
  static boolean targetDown(IOException e) {
    if (e instanceof FencedException || !(e instanceof ClientException c)) {
      return false;
    }
    return switch (c.status()) {
      case UNAVAILABLE, IO_ERROR, TARGET_NOT_FOUND -> true;
      default -> false;
    };
  }
}
