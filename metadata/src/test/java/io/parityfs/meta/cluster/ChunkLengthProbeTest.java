package io.parityfs.meta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.FileType;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.chunks.ChunkLengthProbe;
import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The recovered length is the stored prefix, whatever lies past a missing or short chunk. */
class ChunkLengthProbeTest {
  static final long CHUNK = 4096;
  static final Layout LAYOUT = new Layout(CHUNK, 3, List.of("a", "b", "c"), "raid6:4+2");
  static final FileStatus FILE = new FileStatus("/f", 7, FileType.FILE, 0, 1, 0, 0, "u", "g",
      0644, LAYOUT, "w");

  /** Chunks per target, listed one per page so that paging is exercised. */
  static final class Targets implements ChunkService {
    final Map<String, List<StoredChunk>> chunks = new HashMap<>();
    String down;

    /** Chunk {@code index} on target {@code target} (a mirror copy, a parity chunk). */
    Targets on(String target, int index, long length) {
      chunks.computeIfAbsent(target, t -> new ArrayList<>())
          .add(new StoredChunk(FILE.id(), index, length, 0));
      return this;
    }

    Targets with(int index, long length) {
      chunks.computeIfAbsent(LAYOUT.targets().get(index % 3), t -> new ArrayList<>())
          .add(new StoredChunk(FILE.id(), index, length, 0));
      return this;
    }

    @Override
    public List<String> targets() {
      return LAYOUT.targets();
    }

    @Override
    public ChunkPage list(String targetId, long fileId, long cursor, int limit)
        throws IOException {
      if (targetId.equals(down)) {
        throw new IOException("target " + targetId + " is down");
      }
      List<StoredChunk> all = chunks.getOrDefault(targetId, List.of());
      int at = (int) cursor;
      if (at >= all.size()) {
        return new ChunkPage(List.of(), END);
      }
      return new ChunkPage(List.of(all.get(at)), at + 1 < all.size() ? at + 1 : END);
    }

    /** Deletes at a generation: "target:index@generation", in order. */
    final List<String> fenced = new ArrayList<>();

    @Override
    public boolean delete(String targetId, long fileId, int index) {
      return false;
    }

    @Override
    public boolean delete(String targetId, long fileId, int index, long generation)
        throws IOException {
      if (targetId.equals(down)) {
        throw new IOException("target " + targetId + " is down");
      }
      fenced.add(targetId + ":" + index + "@" + generation);
      List<StoredChunk> list = chunks.getOrDefault(targetId, new ArrayList<>());
      return list.removeIf(c -> c.fileId() == fileId && c.index() == index);
    }
  }

  /**
   * D4: fencing for a new writer generation raises every target's fence (a DELETE at the new
   * generation of each target's first index at or past the end, present or not), then deletes
   * every stored chunk past the end, and answers the prefix of what is left.
   */
  @Test
  void fenceRaisesEveryTargetAndDeletesTheChunksPastTheEnd() throws IOException {
    Targets t = new Targets().with(0, 4096).with(2, 4096).with(3, 4096).with(4, 100);
    FileStatus next = new FileStatus("/f", 7, FileType.FILE, 0, 1, 0, 0, "u", "g", 0644, LAYOUT,
        "w", 5);
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    assertEquals(4096, probe.length(FILE));
    assertEquals(4096, probe.fence(next, 4096));
    assertEquals(List.of("a:3@5", "b:1@5", "c:2@5", "b:4@5"), t.fenced);
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0)), t.chunks.get("a"));
    assertEquals(List.of(), t.chunks.get("b"));
    assertEquals(List.of(), t.chunks.get("c"));
    assertEquals(4096, probe.length(FILE), "nothing past the end is left to resurrect");
  }

  static long probe(Targets t) throws IOException {
    return new ChunkLengthProbe(t, 1).length(FILE);
  }

  @Test
  void fullChunksThenAShortOne() throws IOException {
    assertEquals(0, probe(new Targets()));
    assertEquals(10240, probe(new Targets().with(0, 4096).with(1, 4096).with(2, 2048)));
    assertEquals(16384,
        probe(new Targets().with(0, 4096).with(1, 4096).with(2, 4096).with(3, 4096)));
  }

  @Test
  void stopsAtAMissingChunk() throws IOException {
    // chunk 1 never reached its target; chunks 2 and 3 did
    assertEquals(4096, probe(new Targets().with(0, 4096).with(2, 4096).with(3, 1228)));
    assertEquals(0, probe(new Targets().with(1, 4096).with(2, 4096)));
  }

  @Test
  void stopsAtAShortChunkBeforeTheEnd() throws IOException {
    // an hflushed partial chunk 1 whose full rewrite did not land, chunk 2 stored
    assertEquals(5734, probe(new Targets().with(0, 4096).with(1, 1638).with(2, 4096)));
  }

  static FileStatus file(Layout layout, long generation) {
    return new FileStatus("/f", 7, FileType.FILE, 0, 1, 0, 0, "u", "g", 0644, layout, "w",
        generation);
  }

  /**
   * mirror:2: a chunk counts only when both copies are stored, at the shorter copy's length;
   * fencing deletes every copy past the end, on both targets.
   */
  @Test
  void aMirroredChunkCountsWhenEveryCopyHoldsIt() throws IOException {
    Layout mirrored = LAYOUT.withAcross(Across.mirror(2));
    // chunk 0 on a and b; chunk 1 on b and c, its copy on c shorter (a rewrite that failed)
    Targets t = new Targets().on("a", 0, 4096).on("b", 0, 4096).on("b", 1, 4096)
        .on("c", 1, 1000).on("c", 2, 4096); // chunk 2's copy on a never written
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    assertEquals(4096 + 1000, probe.length(file(mirrored, 1)));
    t.on("a", 2, 4096);
    assertEquals(4096 + 1000, probe.length(file(mirrored, 1)), "chunk 1 is short: the end");
    assertEquals(4096, probe.fence(file(mirrored, 4), 4096));
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0)), t.chunks.get("a"));
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0)), t.chunks.get("b"));
    assertEquals(List.of(), t.chunks.get("c"), "both copies of chunks 1 and 2 are gone");
  }

  /**
   * Members in the file's repair record (a write left them out, their nodes down) are not
   * asked: a mirror copy left out does not shorten the prefix however stale, and an ec data
   * chunk left out counts as what the committed length covers of it.
   */
  @Test
  void membersInTheRepairRecordAreNotAsked() throws IOException {
    Layout mirrored = LAYOUT.withAcross(Across.mirror(2));
    // chunk 1's copy on c is an old, short version (left out of a rewrite); chunk 2's copy on a
    // was never written
    Targets t = new Targets().on("a", 0, 4096).on("b", 0, 4096).on("b", 1, 4096)
        .on("c", 1, 1000).on("c", 2, 4096);
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    Repairs left = new Repairs(List.of(new Repairs.Range("c", 1, 1),
        new Repairs.Range("a", 2, 2)));
    assertEquals(3 * 4096, probe.length(withRepairs(file(mirrored, 1), 3 * 4096, left)));
    assertEquals(4096 + 1000, probe.length(file(mirrored, 1)), "without the record");

    Layout coded = LAYOUT.withAcross(Across.ec(2, 1));
    // data chunk 1 (on b) left out of group 0's round; 1.5 chunks committed
    Targets e = new Targets().on("a", 0, 4096).on("c", ChunkMap.PARITY_BASE, 4096);
    ChunkLengthProbe coding = new ChunkLengthProbe(e, 1);
    FileStatus f = withRepairs(file(coded, 1), 4096 + 2048, Repairs.of("b", 0));
    assertEquals(4096 + 2048, coding.length(f), "chunk 1 as far as the commit covers it");
  }

  static FileStatus withRepairs(FileStatus f, long length, Repairs r) {
    return new FileStatus(f.path(), f.id(), f.type(), length, f.version(), 0, 0, f.owner(),
        f.group(), f.permission(), f.layout(), f.writer(), f.generation(), r);
  }

  /**
   * ec:2+1: parity chunks are not data, whatever their index; fencing keeps the parity of the
   * groups the file still has and deletes that of the groups wholly past the end.
   */
  @Test
  void ecParityIsNotDataAndGoesWithItsGroup() throws IOException {
    Layout coded = LAYOUT.withAcross(Across.ec(2, 1));
    int parity0 = ChunkMap.PARITY_BASE; // group 0's parity, on c
    int parity1 = ChunkMap.PARITY_BASE + 1; // group 1's, on a
    Targets t = new Targets().on("a", 0, 4096).on("b", 1, 4096).on("c", parity0, 4096)
        .on("c", 2, 4096).on("a", 3, 300).on("b", parity1, 4096);
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    assertEquals(3 * 4096 + 300, probe.length(file(coded, 1)));
    assertEquals(2 * 4096, probe.fence(file(coded, 6), 2 * 4096));
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0)), t.chunks.get("a"));
    assertEquals(List.of(new StoredChunk(7, 1, 4096, 0)), t.chunks.get("b"));
    assertEquals(List.of(new StoredChunk(7, parity0, 4096, 0)), t.chunks.get("c"),
        "group 0's parity stays; group 1's data and parity are gone");
  }

  /**
   * ec:2+1, an end inside group 1 (its cut group): the fence keeps group 1's data chunk past
   * the end and its parity (its last round may need them to decode chunk 2), reports the chunk
   * kept, and deletes group 2 whole; the prefix does not count the chunk kept.
   */
  @Test
  void ecFenceKeepsTheCutGroupWhole() throws IOException {
    Layout coded = LAYOUT.withAcross(Across.ec(2, 1));
    int parity1 = ChunkMap.PARITY_BASE + 1;
    int parity2 = ChunkMap.PARITY_BASE + 2;
    Targets t = new Targets().on("a", 0, 4096).on("b", 1, 4096)
        .on("c", ChunkMap.PARITY_BASE, 4096).on("c", 2, 4096).on("a", 3, 4096)
        .on("b", parity1, 4096).on("b", 4, 100).on("a", parity2, 100);
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    io.parityfs.meta.LengthProbe.Fenced fenced = probe.fenceAll(file(coded, 6), 2 * 4096 + 300);
    assertEquals(3 * 4096, fenced.length(), "what is stored before the end, chunk 3 not counted");
    assertEquals(1, fenced.cutKept());
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0), new StoredChunk(7, 3, 4096, 0)),
        t.chunks.get("a"), "chunk 3 stays, group 2's parity is gone");
    assertEquals(List.of(new StoredChunk(7, 1, 4096, 0), new StoredChunk(7, parity1, 4096, 0)),
        t.chunks.get("b"), "group 1's parity stays, chunk 4 is gone");
    assertEquals(0, probe.fenceAll(file(coded, 7), 2 * 4096).cutKept(),
        "an end at a group's end cuts no group");
    assertEquals(List.of(new StoredChunk(7, 0, 4096, 0)), t.chunks.get("a"));
  }

  @Test
  void aTargetThatCannotAnswerFailsTheProbe() {
    Targets t = new Targets().with(0, 4096).with(1, 4096);
    t.down = "c";
    assertThrows(IOException.class, () -> probe(t));
  }

  /**
   * A file with protection across nodes is probed and fenced around a target that is down, as
   * long as every group keeps enough members: its members come back as unreached (for the
   * repair record), the data chunks it held count as far as the commit covers them; with too
   * many members gone the probe fails, as it does for a file without a policy.
   */
  @Test
  void aPolicyFileIsProbedAroundATargetThatIsDown() throws IOException {
    Layout coded = LAYOUT.withAcross(Across.ec(2, 1));
    // groups 0 and 1 stored whole; b (data chunks 1 and 2... here chunk 1 and group 1's parity)
    Targets t = new Targets().on("a", 0, 4096).on("b", 1, 4096)
        .on("c", ChunkMap.PARITY_BASE, 4096).on("c", 2, 4096).on("a", 3, 100)
        .on("b", ChunkMap.PARITY_BASE + 1, 4096);
    t.down = "b";
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    FileStatus f = withRepairs(file(coded, 2), 3 * 4096 + 100, Repairs.NONE);
    assertEquals(3 * 4096 + 100, probe.length(f), "chunk 1 counted as committed");
    io.parityfs.meta.LengthProbe.Fenced fenced = probe.fenceAll(f, 3 * 4096 + 100);
    assertEquals(3 * 4096 + 100, fenced.length());
    assertEquals(List.of(new Repairs.Range("b", 0, 1)), fenced.unreached().ranges());

    // a member of group 0 already in the record and b down: too few left, the probe waits
    FileStatus worse = withRepairs(file(coded, 2), 3 * 4096 + 100, Repairs.of("a", 0));
    assertThrows(IOException.class, () -> probe.length(worse));

    // without a policy, any target down fails it, as before
    assertThrows(IOException.class, () -> probe.fenceAll(file(LAYOUT, 2), 4096));
  }
  /**
   * Past the committed length a chunk counts only where every place that may hold a copy of it
   * answers: an earlier recovery cut the file at a short copy, and with that copy's target down
   * the longer one must not give the cut bytes back (the model test's seed 4018).
   */
  @Test
  void bytesPastTheCommittedLengthCountOnlyWhenEveryCopyAnswers() throws IOException {
    Layout mirrored = LAYOUT.withAcross(Across.mirror(2));
    // chunk 1: 4096 bytes on b, 1000 on c; an earlier recovery committed 4096 + 1000
    Targets t = new Targets().on("a", 0, 4096).on("b", 0, 4096).on("b", 1, 4096)
        .on("c", 1, 1000);
    ChunkLengthProbe probe = new ChunkLengthProbe(t, 1);
    FileStatus cut = withRepairs(file(mirrored, 3), 4096 + 1000, Repairs.NONE);
    assertEquals(4096 + 1000, probe.length(cut));
    t.down = "c";
    assertEquals(4096 + 1000, probe.length(cut), "c down: b's longer copy is not counted");
    assertEquals(4096, probe.length(withRepairs(file(mirrored, 3), 4096, Repairs.NONE)),
        "nor past a shorter committed length");

    Layout coded = LAYOUT.withAcross(Across.ec(2, 1));
    // group 0: chunk 0's own member on a holds a torn seal's 500 bytes, its copy on the parity
    // target c the 300 committed
    Targets e = new Targets().on("a", 0, 500).on("c", 0, 300);
    ChunkLengthProbe coding = new ChunkLengthProbe(e, 1);
    FileStatus f = withRepairs(file(coded, 3), 300, Repairs.NONE);
    assertEquals(300, coding.length(f), "as far as the copy holds it");
    e.down = "c";
    assertEquals(300, coding.length(f), "the parity target down: as far as committed");
    e.down = null;
    assertEquals(300, coding.length(withRepairs(file(coded, 3), 300, Repairs.of("c", 0))),
        "the parity target in the record: as far as committed");
  }
}
