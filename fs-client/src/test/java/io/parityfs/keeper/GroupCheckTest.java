package io.parityfs.keeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.MemberIo;
import io.parityfs.client.across.GroupCodec;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.FileType;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupCheck} on a fake {@link MemberIo} (no cluster): the states of one ec:2+1 group
 * from the members' stats alone, which is all a check reads.
 */
class GroupCheckTest {
  private static final long CHUNK = 4096;
  private static final List<String> TARGETS = List.of("t0", "t1", "t2");
  private static final Layout LAYOUT =
      new Layout(CHUNK, 3, TARGETS, "raid6:4+2").withAcross(Across.ec(2, 1));
  private static final ChunkMap MAP = ChunkMap.of(LAYOUT);
  private static final RoundTag ROUND = new RoundTag(1, 5, 2);

  private final Members members = new Members();

  @Test
  void everyMemberOfOneRoundIsProtected() throws IOException {
    FileStatus f = file(2 * CHUNK);
    for (int j = 0; j < 3; j++) {
      members.put(j, CHUNK, ROUND);
    }
    GroupCheck.Report r = new GroupCheck(members).check(f);
    assertEquals(GroupCheck.State.PROTECTED, r.worst(), r.toString());
    assertEquals(1, r.groups());
    assertTrue(r.findings().isEmpty(), r.toString());
  }

  @Test
  void aMissingMemberOnAnAnsweringTargetIsUnrecorded() throws IOException {
    FileStatus f = file(2 * CHUNK);
    members.put(0, CHUNK, ROUND);
    members.put(1, CHUNK, ROUND);
    GroupCheck.Report r = new GroupCheck(members).check(f);
    assertEquals(GroupCheck.State.UNDER_PROTECTED, r.worst(), r.toString());
    assertEquals(List.of(target(2)), r.findings().get(0).unrecorded(), r.toString());
  }

  @Test
  void aMemberOnATargetDownIsNotUnrecorded() throws IOException {
    FileStatus f = file(2 * CHUNK);
    for (int j = 0; j < 3; j++) {
      members.put(j, CHUNK, ROUND);
    }
    members.down.add(target(0));
    GroupCheck.Report r = new GroupCheck(members).check(f);
    assertEquals(GroupCheck.State.UNDER_PROTECTED, r.worst(), r.toString());
    assertEquals(List.of(), r.findings().get(0).unrecorded(), r.toString());
  }

  @Test
  void aRoundOfMoreDataChunksThanTheLengthIsTorn() throws IOException {
    FileStatus f = file(CHUNK); // one data chunk in the length; the round holds two
    for (int j = 0; j < 3; j++) {
      members.put(j, CHUNK, ROUND);
    }
    assertEquals(GroupCheck.State.TORN, new GroupCheck(members).check(f).worst());
  }

  @Test
  void fewerThanKMembersWithEveryTargetAnsweringIsUnrecoverable() throws IOException {
    FileStatus f = file(2 * CHUNK);
    members.put(2, CHUNK, ROUND);
    assertEquals(GroupCheck.State.UNRECOVERABLE, new GroupCheck(members).check(f).worst());
    members.down.add(target(0));
    assertEquals(GroupCheck.State.UNAVAILABLE, new GroupCheck(members).check(f).worst());
  }

  private static FileStatus file(long length) {
    return new FileStatus("/f", 7, FileType.FILE, length, 1, 0, 0, "u", "g", 0644, LAYOUT, null,
        1);
  }

  private static String target(int member) {
    return TARGETS.get(MAP.memberPosition(0, member));
  }

  /** Members of file 7's group 0 by target and index; only what a check calls is there. */
  private static final class Members implements MemberIo {
    final Map<String, ChunkStat> stats = new HashMap<>();
    final Set<String> down = new HashSet<>();

    void put(int member, long length, RoundTag tag) {
      stats.put(target(member) + "/" + MAP.memberIndex(0, member),
          new ChunkStat(length, 1, 0, 0, tag.generation(), tag.sequence()));
    }

    @Override
    public boolean healthy(String target) {
      return !down.contains(target);
    }

    @Override
    public Optional<ChunkStat> statMember(String target, long fileId, int index) {
      return down.contains(target) ? Optional.empty()
          : Optional.ofNullable(stats.get(target + "/" + index));
    }

    @Override
    public Optional<ChunkStat> readMember(String target, long fileId, int index, long offset,
        ByteBuffer dst) {
      throw new UnsupportedOperationException("a check reads no data");
    }

    @Override
    public void writeMember(String target, long fileId, long generation, long sequence,
        long tagGeneration, int index, ByteBuffer data) {
      throw new UnsupportedOperationException("a check writes nothing");
    }

    @Override
    public int read(long fileId, Layout layout, Repairs stale, int index, long offset,
        ByteBuffer dst) {
      throw new UnsupportedOperationException("a check reads no data");
    }

    @Override
    public long nextSequence() {
      throw new UnsupportedOperationException("a check writes nothing");
    }

    @Override
    public GroupCodec groupCodec(Across across) {
      throw new UnsupportedOperationException("a check decodes nothing");
    }

    @Override
    public long rebuildOnNode(String onto, long fileId, long generation, long sequence,
        long tagGeneration, int index, int k, int m, int member, long length, long groupLength,
        List<RebuildSource> sources) {
      throw new UnsupportedOperationException("a check writes nothing");
    }

    @Override
    public Executor fanOut() {
      return Runnable::run;
    }

    @Override
    public List<String> targets() {
      return TARGETS;
    }

    @Override
    public ChunkPage list(String targetId, long fileId, long cursor, int limit) {
      throw new UnsupportedOperationException("a check lists nothing");
    }

    @Override
    public boolean delete(String targetId, long fileId, int index) {
      throw new UnsupportedOperationException("a check deletes nothing");
    }
  }
}
