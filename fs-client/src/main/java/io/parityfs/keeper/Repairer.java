package io.parityfs.keeper;

import io.parityfs.client.ClientException;
import io.parityfs.client.ClientStatus;
import io.parityfs.client.FencedException;
import io.parityfs.client.MemberIo;
import io.parityfs.client.ParityClient;
import io.parityfs.client.across.GroupCodec;

import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.Repairs;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catch-up (docs/across-nodes.md §5): stores again the members a file's repair record names,
 * once their targets are back, and takes them out of the record. Only what the record names is
 * written, not the whole of a returning node.
 *
 * <ul>
 *   <li>{@code mirror:N}: the chunk is read from a copy the record does not name and stored on
 *       the returned target.
 *   <li>{@code ec:K+M}: when the group's other members carry one tag of this writer generation,
 *       the member's bytes are decoded (data) or encoded again from the data (parity) and
 *       stored under that tag, so it joins their round; otherwise (members of several rounds,
 *       or of an older writer generation, which the targets' fences no longer take) the group is
 *       stored again whole, as a new round, every member on its target.
 * </ul>
 *
 * Only closed files are repaired, so no writer is storing the same groups meanwhile, and the
 * record shrinks in one versioned write per batch that fails if the file was written since
 * ({@code Namespace#repaired}): a file reopened meanwhile is left for the next pass. Members on
 * targets still down stay in the record. Thread-safe for distinct files.
 */
public final class Repairer {
  private static final Logger LOG = LoggerFactory.getLogger(Repairer.class);
  /** Groups repaired between two commits of the shrunk record: a long repair resumes there. */
  static final int BATCH = 64;

  private final ParityClient client;
  private final MemberIo chunks;

  public Repairer(ParityClient client) {
    this.client = client;
    this.chunks = client.memberIo();
  }

  /**
   * What a repair of one file did.
   *
   * @param path the file
   * @param repaired members stored again and taken out of the record
   * @param waiting members left in the record: their targets are down (or were replaced)
   * @param bytes bytes written
   * @param skipped why the file was not repaired (open for writing, written meanwhile), or null
   */
  public record Outcome(String path, long repaired, long waiting, long bytes, String skipped) {}

  /** Repairs the members of {@code path}'s repair record whose targets are up. */
  public Outcome repair(String path) throws IOException {
    FileStatus f = client.namespace().getStatus(path);
    if (f.isDirectory() || f.isSymlink() || f.repairs().isEmpty()) {
      return new Outcome(f.path(), 0, 0, 0, null);
    }
    if (f.isOpenForWrite()) {
      return new Outcome(f.path(), 0, f.repairs().members(), 0, "open for writing by "
          + f.writer() + ": repaired once it is closed");
    }
    Layout layout = f.layout();
    ChunkMap map = ChunkMap.of(layout);
    long groups = map.groups(f.length());
    long repaired = 0;
    long waiting = 0;
    long bytes = 0;
    Repairs done = Repairs.NONE;
    int inBatch = 0;
    java.util.Set<Long> torn = new java.util.TreeSet<>();
    for (Repairs.Range r : f.repairs().ranges()) {
      if (r.from() >= groups) {
        // wholly past the end (a truncate could not delete there): nothing to store, but what
        // the target holds past the end is deleted once it is back
        if (layout.targets().contains(r.target()) && !chunks.healthy(r.target())) {
          waiting += r.groups();
          continue;
        }
        if (layout.targets().contains(r.target())) {
          trim(f, map, r.target());
        }
        done = done.with(new Repairs(List.of(r)));
        continue;
      }
      if (!chunks.healthy(r.target()) || !layout.targets().contains(r.target())) {
        waiting += r.groups();
        continue;
      }
      if (r.to() >= groups) {
        done = done.with(new Repairs(List.of(new Repairs.Range(r.target(), groups, r.to()))));
      }
      trim(f, map, r.target());
      for (long g = r.from(); g <= Math.min(r.to(), groups - 1); g++) {
        if (!f.holes().contains(g)) { // a hole has no member to store
          try {
            bytes += rebuild(f, map, g, r.target(), r.target());
          } catch (ClientException e) {
            if (e.status() != ClientStatus.ILLEGAL_STATE) {
              throw e;
            }
            torn.add(g); // left in the record, reported; the other groups go on
            waiting++;
            LOG.warn("{}", e.getMessage());
            continue;
          }
        }
        done = done.with(Repairs.of(r.target(), g));
        repaired++;
        if (++inBatch == BATCH) {
          f = commit(f, done);
          if (f == null) {
            return new Outcome(path, repaired, waiting, bytes, "written meanwhile");
          }
          done = Repairs.NONE;
          inBatch = 0;
        }
      }
    }
    if (!done.isEmpty() && commit(f, done) == null) {
      return new Outcome(path, repaired, waiting, bytes, "written meanwhile");
    }
    return new Outcome(f.path(), repaired, waiting, bytes, torn.isEmpty() ? null : "groups "
        + torn + " are torn (no round with all their other members): not stored again, so that"
        + " no member of a complete round is replaced");
  }

  /**
   * Hands what a check of {@code f} found to catch-up ({@code parityfs fsck --repair}, the
   * keeper's check): the members its findings name as unrecorded (missing or of another round
   * while their targets answer; for a group in copies, one member, whose catch-up seals it) go
   * in the file's repair record, and the file is caught up. Null when there was nothing to hand
   * over, or the file is open for writing (its writer seals its groups).
   */
  public HandOff handOff(FileStatus f, GroupCheck.Report r) throws IOException {
    if (f.isOpenForWrite()) {
      return null;
    }
    List<Repairs.Range> ranges = new ArrayList<>();
    List<Long> seal = new ArrayList<>();
    for (GroupCheck.Finding g : r.findings()) {
      if (g.inCopies() || g.state() == GroupCheck.State.TORN) {
        seal.add(g.group());
      }
      for (String t : g.unrecorded()) {
        ranges.add(new Repairs.Range(t, g.group(), g.group()));
      }
    }
    if (ranges.isEmpty() && seal.isEmpty()) {
      return null;
    }
    long sealed = 0;
    long bytes = 0;
    List<Long> notSealed = new ArrayList<>();
    if (!seal.isEmpty()) {
      ChunkMap map = ChunkMap.of(f.layout());
      int k = f.layout().across().data();
      java.util.Set<Long> torn = new java.util.HashSet<>();
      r.findings().stream().filter(x -> x.state() == GroupCheck.State.TORN)
          .forEach(x -> torn.add(x.group()));
      for (long g : seal) {
        long n = torn.contains(g) ? sealAtLength(f, map, g)
            : sealFromCopies(f, map, g, (int) Math.min(k, map.dataChunks(f.length()) - g * k),
                null);
        if (n < 0) {
          notSealed.add(g);
        } else {
          sealed++;
          bytes += n;
        }
      }
    }
    Outcome o = new Outcome(f.path(), 0, 0, 0, null);
    if (!ranges.isEmpty()) {
      // members missing, or of another round than the one the group decodes from: recording
      // them takes nothing from that round
      LOG.info("{}: handed to catch-up: {}", f.path(), ranges);
      FileStatus now = client.namespace().getStatus(f.path());
      client.namespace().damaged(f.path(), f.id(), now.version(), now.generation(),
          new Repairs(ranges));
      o = repair(f.path());
    }
    String skipped = notSealed.isEmpty() ? o.skipped() : "groups " + notSealed + " in copies"
        + " not sealed now (a target down)" + (o.skipped() == null ? "" : "; " + o.skipped());
    return new HandOff(ranges.size() + seal.size(), new Outcome(o.path(),
        o.repaired() + sealed, o.waiting() + notSealed.size(), o.bytes() + bytes, skipped));
  }

  /** What {@link #handOff} did: the members it added to the record, and the catch-up after. */
  public record HandOff(int members, Outcome outcome) {}

  /**
   * Seals the groups of {@code f} from group {@code from} on that are in copies or torn: checks
   * them, hands what it found over ({@link #handOff}), and checks them again on the file as the
   * hand-off left it. The one sequence behind the keeper's seal marks and the movers' seal before
   * a move (docs/across-nodes.md, "Lease recovery" and "Moves").
   */
  public Seal seal(FileStatus f, long from) throws IOException {
    GroupCheck check = new GroupCheck(client);
    GroupCheck.Report before = check.check(f, from);
    if (!before.unsealed()) {
      return new Seal(f, before, null);
    }
    HandOff h = handOff(f, before);
    FileStatus now = client.namespace().getStatus(f.path());
    return new Seal(now, check.check(now, from), h);
  }

  /**
   * What {@link #seal} left: the file's status and the check of its groups after it, and what
   * was handed over (null when nothing needed a seal, or the file is open for writing).
   */
  public record Seal(FileStatus file, GroupCheck.Report after, HandOff handOff) {
    /** Whether no group checked is left in copies or torn. */
    public boolean done() {
      return !after.unsealed();
    }
  }

  /**
   * Deletes the file's chunks on {@code target} past its end, at its writer generation (which
   * also raises the target's fence for the file): a target that was away may hold chunks a
   * writer stored there before it died, which no fence reached; once its members are caught up
   * and out of the record, a later lease recovery's prefix must not count them.
   */
  private void trim(FileStatus f, ChunkMap map, String target) throws IOException {
    long data = map.dataChunks(f.length());
    long groups = map.groups(f.length());
    long cursor = 0;
    List<Integer> past = new ArrayList<>();
    do {
      io.parityfs.meta.chunks.ChunkPage page = chunks.list(target, f.id(), cursor, 1000);
      for (io.parityfs.meta.chunks.StoredChunk c : page.chunks()) {
        long group = map.groupOf(c.index());
        // past the end, or in a hole (a writer that died stored it uncommitted)
        boolean beyond = group >= groups || c.index() >= data && !map.isParity(c.index())
            || f.holes().contains(group);
        if (c.fileId() == f.id() && beyond) {
          past.add(c.index());
        }
      }
      cursor = page.nextCursor();
    } while (cursor != io.parityfs.meta.chunks.ChunkService.END);
    for (int index : past) {
      chunks.delete(target, f.id(), index, f.generation());
    }
  }

  /**
   * Deletes group {@code g}'s data members {@code present..K-1} (past the end of the file) on
   * {@code layout}'s targets, at the file's generation, once a round has stored the group cut at
   * the end: none of its members needs them any more. One on a target that is down stays
   * there (see the comment inside), and the seal is done without it.
   */
  private void deletePastEnd(FileStatus f, Layout layout, ChunkMap map, long g, int present)
      throws IOException {
    for (int j = present; j < layout.across().data(); j++) {
      String t = layout.targets().get(map.memberPosition(g, j));
      try {
        chunks.delete(t, f.id(), map.memberIndex(g, j), f.generation());
      } catch (IOException e) {
        if (!MemberIo.targetDown(e)) {
          throw e;
        }
        // the seal is done without it: no length counts a chunk past the end, a new writer's
        // fence keeps it for its restore of the cut group (CutGroup), which deletes it, and
        // catch-up's trim deletes it once the target is back (model test seed 4031: the
        // hand-off failed on it)
        LOG.info("{}: group {}'s data member {} past the end left on {} (down): {}", f.path(),
            g, j, t, e.getMessage());
      }
    }
  }

  /**
   * Seals the cut group {@code g} of {@code f}, where that keeps a decodable round at every
   * step: lease recovery left it inside its newest round B, which holds more data chunks than
   * the length covers (B decodes the committed bytes from its members past the end and its
   * parity), and B has no usable data member within the length (each one is in the record or
   * missing). Then the new round S, cut at the length, is stored in an order that never leaves
   * the committed bytes without a round that decodes them:
   * <ol>
   *   <li>S's data members, each in the record or missing: writing them takes nothing from B;
   *       once they are all stored, S decodes from them alone;
   *   <li>S's parity, one member at a time, each replacing one of B's;
   *   <li>B's data members past the end, deleted (no round needs them now).
   * </ol>
   * Returns the bytes written, or -1 when the group is not such a case (it stays torn and is
   * reported: sealing the general case needs copies of the committed bytes first, issue 40).
   */
  private long sealCut(FileStatus f, ChunkMap map, long g) throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    int present = (int) Math.min(k, map.dataChunks(f.length()) - g * k);
    RoundTag round = null;
    int members = 0;
    for (int j = 0; j < k + m; j++) {
      String t = layout.targets().get(map.memberPosition(g, j));
      if (f.repairs().stale(t, g)) {
        continue;
      }
      if (!chunks.healthy(t)) {
        return -1; // a member that cannot be asked: not sure what B holds
      }
      Optional<ChunkStat> s = chunks.statMember(t, f.id(), map.memberIndex(g, j));
      if (s.isEmpty()) {
        continue;
      }
      if (j < present || !s.get().tagged()) {
        return -1; // a usable data member within the length: writing S would take it from B
      }
      RoundTag tag = s.get().tag();
      if (round != null && !round.equals(tag)) {
        return -1; // members of several rounds
      }
      round = tag;
      members++;
    }
    if (round == null || round.count() <= present || members < round.count()) {
      return -1; // no cut round B that decodes
    }
    ByteBuffer[] data = chunks.readData(f, g * k, present, k); // decoded from B
    long sequence = new RoundTag(f.generation(), chunks.nextSequence(), present).sequence();
    long n = 0;
    for (int j = 0; j < present; j++) {
      n += data[j].remaining();
      chunks.writeMember(layout.targets().get(map.memberPosition(g, j)), f.id(), f.generation(),
          sequence, map.memberIndex(g, j), data[j].duplicate());
    }
    ByteBuffer[] parity = chunks.groupCodec(layout.across()).encode(data);
    for (int p = 0; p < m; p++) {
      n += parity[p].remaining();
      chunks.writeMember(layout.targets().get(map.memberPosition(g, k + p)), f.id(),
          f.generation(), sequence, map.memberIndex(g, k + p), parity[p]);
    }
    deletePastEnd(f, layout, map, g, present);
    LOG.info("{}: group {} sealed at the length (cut inside its round {} by lease recovery)",
        f.path(), g, round);
    return n;
  }

  /**
   * Group {@code g}'s member {@code member} as round {@code tag} holds it, from the round's
   * other members read whole with that tag: a data chunk decoded over the round's longest
   * member, its zero padding past the bytes the length covers trimmed; a parity chunk encoded
   * from the round's data chunks as the round holds them. A member that joins a round must be
   * the round's own (audit P1): one cut at the file's length, where the round holds more
   * (lease recovery ended the file inside the round's last chunk), would no longer decode
   * with the round's other members: the round's parity covers the bytes past the length.
   */
  private ByteBuffer asInRound(FileStatus f, ChunkMap map, long g, int member, RoundTag tag,
      int present) throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    int c = tag.count();
    ByteBuffer[] members = new ByteBuffer[k + m];
    int longest = 0;
    int found = 0;
    for (int j = 0; j < k + m; j++) {
      if (j < k && j >= c) {
        members[j] = ByteBuffer.allocate(0); // past the round's end: zeros to the code
        continue;
      }
      String t = layout.targets().get(map.memberPosition(g, j));
      if (j == member || f.repairs().stale(t, g)) {
        continue;
      }
      ByteBuffer whole = readWhole(f, t, map.memberIndex(g, j), tag);
      if (whole != null) {
        members[j] = whole;
        longest = Math.max(longest, whole.remaining());
        found++;
      }
    }
    if (found + (k - c) < k) {
      throw new ClientException(ClientStatus.ILLEGAL_STATE, f.path(), f.path() + ": group " + g
          + "'s round " + tag + " has fewer than " + k + " members to read (they changed while"
          + " it was caught up): its member " + member + " is not stored again");
    }
    GroupCodec codec = chunks.groupCodec(layout.across());
    if (member < k) {
      ByteBuffer out = codec.reconstruct(members, member, longest);
      long need = Math.max(0, Math.min(layout.chunkSize(),
          f.length() - (g * k + member) * layout.chunkSize()));
      int end = out.limit();
      while (end > need && out.get(end - 1) == 0) {
        end--; // padding: the code takes a shorter member as zeros there
      }
      return out.limit(end);
    }
    ByteBuffer[] data = new ByteBuffer[k];
    for (int j = 0; j < c; j++) {
      data[j] = members[j] != null ? members[j] : codec.reconstruct(members, j, longest);
    }
    return codec.encode(data)[member - k];
  }

  /** The whole of chunk {@code index} on {@code target} if it carries {@code tag}, else null. */
  private ByteBuffer readWhole(FileStatus f, String target, int index, RoundTag tag)
      throws IOException {
    Optional<ChunkStat> s = chunks.statMember(target, f.id(), index);
    if (s.isEmpty() || !tag.equals(s.get().tag())) {
      return null;
    }
    ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(s.get().length()));
    while (bytes.hasRemaining()) {
      int before = bytes.position();
      Optional<ChunkStat> read = chunks.readMember(target, f.id(), index, before, bytes);
      if (read.isEmpty() || bytes.position() == before || !sameVersion(read.get(), s.get())) {
        return null; // changed meanwhile
      }
    }
    return bytes.flip();
  }

  /**
   * Seals group {@code g} of closed file {@code f} at its length when only a round of more
   * data chunks than the length covers decodes it (TORN: lease recovery ended the file inside
   * that round): copies of its committed content first, on each data chunk's own target and the
   * group's parity targets, then {@link #sealFromCopies}. The old round's members are replaced
   * only while the copies hold the bytes. Returns the bytes of the seal, -1 when a target it
   * needs is down (nothing lost: the copies or the old round still hold the bytes).
   */
  private long sealAtLength(FileStatus f, ChunkMap map, long g) throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    int present = (int) Math.min(k, map.dataChunks(f.length()) - g * k);
    ByteBuffer[] data = chunks.readData(f, g * k, present, k);
    RoundTag copy = RoundTag.copy(f.generation(), chunks.nextSequence());
    // the parity targets first (another chunk id than the parity: nothing of the old round is
    // replaced), the chunks' own targets only once every chunk has its copies there
    List<int[]> writes = new ArrayList<>(); // {member position j of the chunk, target member}
    for (int p = k; p < k + m; p++) {
      for (int j = 0; j < present; j++) {
        writes.add(new int[] {j, p});
      }
    }
    for (int j = 0; j < present; j++) {
      writes.add(new int[] {j, j});
    }
    for (int[] w : writes) {
      int j = w[0];
      String t = layout.targets().get(map.memberPosition(g, w[1]));
      if (f.repairs().stale(t, g)) {
        continue;
      }
      try {
        chunks.writeMember(t, f.id(), f.generation(), copy.sequence(), map.memberIndex(g, j),
            data[j].duplicate());
      } catch (ClientException e) {
        if (!MemberIo.targetDown(e)) {
          throw e;
        }
        return -1;
      }
    }
    return sealFromCopies(f, map, g, present, null);
  }

  /** The round of a seal from copies: above every round a writer's counter reaches. */
  static final long SEAL_ROUND = (1L << 40) - 1;

  /**
   * The newest copy tag (count 0) among group {@code g}'s data members within the length and
   * its data chunks' copies on its parity targets, leaving out {@code at} and targets in the
   * record or down; null when there is none.
   */
  private RoundTag newestCopy(FileStatus f, ChunkMap map, long g, int present, String at)
      throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    RoundTag best = null;
    for (int j = 0; j < k + m; j++) {
      String t = layout.targets().get(map.memberPosition(g, j));
      if (t.equals(at) || f.repairs().stale(t, g) || j >= present && j < k) {
        continue;
      }
      for (int i = j < k ? j : 0; i < (j < k ? j + 1 : present); i++) {
        Optional<ChunkStat> s = chunks.statMember(t, f.id(), map.memberIndex(g, i));
        RoundTag tag = s.map(ChunkStat::tag).orElse(null);
        if (tag != null && tag.isCopy()) {
          best = tag.newerThan(best) ? tag : best;
        }
      }
    }
    return best;
  }

  /**
   * Seals group {@code g} from its copies (docs/across-nodes.md, "Sealing"): its committed
   * content, read as readers read it (the newest of copies and rounds), stored as one round
   * cut at the length under a deterministic tag (this generation, {@link #SEAL_ROUND}, the
   * data chunk count), so two sealers at once write the same members. The round replaces no
   * copy on a parity target (a parity member has its own chunk id), and the copies are
   * deleted only once every member is stored: the committed bytes are in copies or in a
   * complete round at every step. Every target of the group but those in the record (other
   * than {@code at}) must take its member; -1 when one is down (the group stays readable, in
   * its copies, and the next pass writes the same seal again).
   */
  private long sealFromCopies(FileStatus f, ChunkMap map, long g, int present, String at)
      throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    List<Integer> write = new ArrayList<>();
    for (int j = 0; j < k + m; j++) {
      String t = layout.targets().get(map.memberPosition(g, j));
      if (f.repairs().stale(t, g) && !t.equals(at)) {
        continue; // stays in the record: catch-up joins the seal there later
      }
      if (j < present || j >= k) {
        write.add(j);
      }
    }
    ByteBuffer[] data = chunks.readData(f, g * k, present, k);
    ByteBuffer[] parity = chunks.groupCodec(layout.across()).encode(data);
    long sequence = new RoundTag(f.generation(), SEAL_ROUND, present).sequence();
    long n = 0;
    for (int j : write) {
      ByteBuffer bytes = j < k ? data[j].duplicate() : parity[j - k].duplicate();
      n += bytes.remaining();
      String t = layout.targets().get(map.memberPosition(g, j));
      try {
        chunks.writeMember(t, f.id(), f.generation(), sequence, map.memberIndex(g, j), bytes);
      } catch (ClientException e) {
        if (!MemberIo.targetDown(e)) {
          throw e;
        }
        return -1; // the copies stay; the seal is written again, the same, on the next pass
      }
    }
    for (int p = k; p < k + m; p++) {
      String t = layout.targets().get(map.memberPosition(g, p));
      if (f.repairs().stale(t, g) && !t.equals(at)) {
        continue;
      }
      for (int j = 0; j < k; j++) {
        chunks.delete(t, f.id(), map.memberIndex(g, j), f.generation());
      }
    }
    deletePastEnd(f, layout, map, g, present);
    LOG.info("{}: group {} sealed from its copies ({} data chunks)", f.path(), g, present);
    return n;
  }

  /** Takes {@code done} out of the record; null when the file was written since it was read. */
  private FileStatus commit(FileStatus f, Repairs done) throws NamespaceException {
    try {
      return client.namespace().repaired(f.path(), f.id(), f.version(), f.generation(), done);
    } catch (NamespaceException e) {
      return switch (e.status()) {
        case CONFLICT, LEASE_CONFLICT -> null;
        default -> throw e;
      };
    }
  }

  /**
   * Has the node of {@code onto} rebuild group {@code g}'s member {@code member} itself from K
   * members of round {@code tag} that {@code stats} found, read from their nodes by it
   * (REBUILD_MEMBER, docs/across-nodes.md §5): data chunks past the end of the file first (known
   * zeros, read from nowhere), then data members, then parity, on targets that answer. Returns the bytes stored, or -1 when this client must rebuild it: fewer than K
   * such members, a node that cannot, or a rebuild there that failed (logged).
   */
  private long onNode(FileStatus f, ChunkMap map, long g, int member, String onto,
      RoundTag tag, Map<Integer, ChunkStat> stats) throws IOException {
    Layout layout = f.layout();
    int k = layout.across().data();
    int m = layout.across().parity();
    long chunkSize = layout.chunkSize();
    int present = (int) Math.min(k, map.dataChunks(f.length()) - g * k);
    long groupLength = Math.min(chunkSize, f.length() - g * k * chunkSize);
    long length = member < k
        ? Math.min(chunkSize, f.length() - (g * k + member) * chunkSize) : groupLength;
    List<MemberIo.RebuildSource> sources = new ArrayList<>(k);
    for (int j = present; j < k && sources.size() < k; j++) {
      if (j != member) {
        sources.add(new MemberIo.RebuildSource(j, null, map.memberIndex(g, j), 0));
      }
    }
    for (Map.Entry<Integer, ChunkStat> e : stats.entrySet()) {
      String t = layout.targets().get(map.memberPosition(g, e.getKey()));
      if (sources.size() < k && e.getValue().length() <= groupLength && e.getValue().length() > 0
          && chunks.healthy(t)) {
        sources.add(new MemberIo.RebuildSource(e.getKey(), t, map.memberIndex(g, e.getKey()),
            e.getValue().length()));
      }
    }
    if (sources.size() < k || groupLength <= 0) {
      return -1;
    }
    try {
      return chunks.rebuildOnNode(onto, f.id(), f.generation(), tag.sequence(), tag.generation(),
          map.memberIndex(g, member), k, m, member, length, groupLength, sources);
    } catch (FencedException e) {
      throw e;
    } catch (ClientException e) {
      LOG.info("{}: group {}'s member {} not rebuilt by the node of {} ({}): rebuilt here",
          f.path(), g, member, onto, e.getMessage());
      return -1;
    }
  }

  /**
   * Copies group {@code g}'s member on live target {@code from} to {@code onto} as it is, with
   * its tag (a drain, {@link Reprotector#drain}): the group keeps its round and its members,
   * whichever other targets are down meanwhile. Returns the bytes copied, 0 when no member of
   * the group is there, or -1 when it is not copied: the file's repair record names it, {@code
   * from} has not got it, or reading or storing it failed (logged); the caller rebuilds it then.
   */
  long copy(FileStatus f, ChunkMap map, long g, String from, String onto) {
    Layout layout = f.layout();
    List<ChunkMap.Placed> there = map.membersAt(g, layout.targets().indexOf(from), f.length());
    if (there.isEmpty()) {
      return 0;
    }
    int index = there.get(0).index(); // a group has one member on a target
    if (f.repairs().stale(from, g)) {
      return -1;
    }
    try {
      Optional<ChunkStat> size = chunks.statMember(from, f.id(), index);
      if (size.isEmpty()) {
        return -1;
      }
      ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(size.get().length()));
      Optional<ChunkStat> read = Optional.empty();
      while (bytes.hasRemaining()) {
        int before = bytes.position();
        read = chunks.readMember(from, f.id(), index, before, bytes);
        if (read.isEmpty() || bytes.position() == before
            || !sameVersion(read.get(), size.get())) {
          return -1;
        }
      }
      ChunkStat tag = read.orElse(size.get());
      chunks.writeMember(onto, f.id(), tag.generation(), tag.sequence(), index, bytes.flip());
      return bytes.limit();
    } catch (IOException | ArithmeticException e) {
      LOG.info("{}: member {} not copied from {} ({}): rebuilt"
          + " instead", f.path(), index, from, e.getMessage());
      return -1;
    }
  }

  /** Whether two stats of one chunk are of the same version: one tag, one length. */
  private static boolean sameVersion(ChunkStat a, ChunkStat b) {
    return Objects.equals(a.tag(), b.tag()) && a.length() == b.length();
  }

  /**
   * Stores group {@code g}'s member at target {@code at}'s position on target {@code onto}
   * ({@code at} itself for catch-up; a new target for re-protection, {@link Reprotector}),
   * from the group's other members: {@code f}'s repair record must name {@code at}'s member, so
   * that nothing is read from it. Returns the bytes written (0: no member there).
   */
  long rebuild(FileStatus f, ChunkMap map, long g, String at, String onto) throws IOException {
    Layout layout = f.layout();
    List<ChunkMap.Placed> here = map.membersAt(g, layout.targets().indexOf(at), f.length());
    if (!layout.across().isErasureCoded()) {
      if (here.isEmpty()) {
        return 0;
      }
      ByteBuffer data = chunks.readChunk(f, g);
      chunks.writeMember(onto, f.id(), f.generation(), chunks.nextSequence(), (int) g, data);
      return data.limit();
    }
    int k = layout.across().data();
    int m = layout.across().parity();
    int present = (int) Math.min(k, map.dataChunks(f.length()) - g * k);
    // no member there, or a data chunk past the end of the file: -1, none to store
    int member = here.isEmpty() ? -1 : map.memberOf(here.get(0).index());
    Map<RoundTag, Integer> tags = new HashMap<>(); // untagged: the null key
    Map<Integer, ChunkStat> stats = new java.util.TreeMap<>(); // by member: data first
    for (int j = 0; j < k + m; j++) {
      String t = layout.targets().get(map.memberPosition(g, j));
      if (j != member && (j < present || j >= k) && !f.repairs().stale(t, g)) {
        Optional<ChunkStat> s = chunks.statMember(t, f.id(), map.memberIndex(g, j));
        s.ifPresent(st -> tags.merge(st.tag(), 1, Integer::sum));
        int number = j;
        s.ifPresent(st -> stats.put(number, st));
      }
    }
    if (member < 0) {
      return 0;
    }
    RoundTag one = tags.size() == 1 ? tags.keySet().iterator().next() : null;
    if (one != null && one.isCopy()) {
      one = null; // copies only: no round
    }
    RoundTag copy = newestCopy(f, map, g, present, at);
    if (copy != null && copy.newerThan(one)) {
      // the group's newest content is in copies (an hflush, or an append, that no round
      // sealed): it is sealed from them, never joined to an older round
      long sealed = at.equals(onto) ? sealFromCopies(f, map, g, present, at) : -1;
      if (sealed >= 0) {
        return sealed;
      }
      throw new ClientException(ClientStatus.ILLEGAL_STATE, f.path(), f.path() + ": group " + g
          + " holds copies newer than its rounds " + tags.keySet() + " and cannot be sealed"
          + " now (a target of the group is down" + (at.equals(onto) ? ""
          : ", or it is being moved: it is sealed first") + "): its member on " + at
          + " is not stored again");
    }
    if (one != null && one.generation() <= f.generation() && one.count() == present) {
      // the other members are one round (of this writer generation or an earlier one): the
      // member joins it with the round's exact tag, fenced as the file's generation (audit N1),
      // a data chunk decoded from K of them, a parity chunk encoded again from the data; by
      // the node of `onto` itself where it can (the K members go there, not through here)
      long chunkSize = layout.chunkSize();
      boolean lastPartial = member == present - 1
          && f.length() - (g * k + member) * chunkSize < chunkSize;
      // the last data chunk within a partial length may hold more in its round than the
      // length covers (lease recovery ended the file inside it): only the round's own bytes
      // join it, which the node path does not see
      long built = lastPartial ? -1 : onNode(f, map, g, member, onto, one, stats);
      if (built >= 0) {
        return built;
      }
      ByteBuffer bytes = asInRound(f, map, g, member, one, present);
      int n = bytes.remaining();
      chunks.writeMember(onto, f.id(), f.generation(), one.sequence(), one.generation(),
          map.memberIndex(g, member), bytes);
      return n;
    }
    if (at.equals(onto)) {
      long sealed = sealCut(f, map, g);
      if (sealed >= 0) {
        return sealed;
      }
    }
    // members of several rounds, or a round of other data chunks than the length covers: a
    // torn group. A new round over it would replace members of the newest round that has K of
    // them, the only one that may protect committed bytes (audit H3, H4): nothing is written,
    // the member stays in the record, and the group is reported
    throw new ClientException(ClientStatus.ILLEGAL_STATE, f.path(), f.path() + ": group " + g
        + " is torn (its other members carry the tags " + tags.keySet() + ", (generation,"
        + " round/count), null: untagged; " + present + " data chunks expected): its member on " + at + " is not"
        + " stored again, so that no member of its newest complete round is replaced");
  }
}
