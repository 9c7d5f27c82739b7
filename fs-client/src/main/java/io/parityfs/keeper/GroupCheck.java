package io.parityfs.keeper;

import io.parityfs.client.MemberIo;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code parityfs fsck} finds in a file's groups across nodes (issue 40 item 2;
 * docs/across-nodes.md, "Checking groups"): for every group of a file with a policy across
 * nodes, which of its members the targets hold, with which round's tag, and so what state the
 * group is in. Read only: it stats members and reads no data. A hole ({@link
 * io.parityfs.meta.Holes}) has no member and is not a group to check.
 *
 * <p>For {@code ec:K+M} a round that stored c data chunks can be decoded from c of its members
 * (its data chunks past c are zeros); readers take a round that covers the file's data chunks
 * in the group (c = the chunks the length covers) with enough members that they can use
 * (members the file's repair record names are not used). For {@code mirror:N} a chunk is
 * readable from any copy that is not in the record and holds the bytes the length covers.
 */
public final class GroupCheck {
  /** A group's state, from best to worst. */
  public enum State {
    /** Every member of its round (every copy) is stored and usable. */
    PROTECTED,
    /** Its committed bytes are in copies, M+1 of each (an hflush, or an append, that no round
     * sealed): as safe as a round. A closed file's tail groups are sealed by catch-up ({@code
     * parityfs repair}, {@code fsck --repair}, the keeper). */
    TAIL,
    /** Readable, with fewer spare members than the policy gives: catch-up or a node's return
     * heals it. */
    UNDER_PROTECTED,
    /** Readable only from a round that stored other data chunks than the length covers (lease
     * recovery cut it): catch-up refuses to store its members (docs/across-nodes.md); sealing
     * it is not built. */
    TORN,
    /** Not readable now, because members are on targets that cannot be reached. */
    UNAVAILABLE,
    /** Not readable: no round (no copy) with enough members, every target answering. */
    UNRECOVERABLE
  }

  /**
   * A group not PROTECTED: its number, state, what was found, and the targets whose member is
   * missing or of another round while their target answers and the repair record does not name
   * it (what catch-up would store again once the record names it: {@code fsck --repair}).
   */
  public record Finding(long group, State state, String detail, List<String> unrecorded,
      boolean inCopies) {
    public Finding {
      unrecorded = List.copyOf(unrecorded);
    }

    Finding(long group, State state, String detail, List<String> unrecorded) {
      this(group, state, detail, unrecorded, false);
    }
  }

  /**
   * One file's groups.
   *
   * @param path the file
   * @param policy its policy across nodes
   * @param groups groups checked (holes left out)
   * @param counts groups by state
   * @param findings the groups not PROTECTED, the first {@link #MAX_FINDINGS}
   */
  public record Report(String path, String policy, long groups, Map<State, Long> counts,
      List<Finding> findings) {
    /** The worst state of a group, PROTECTED when there are none. */
    /**
     * Whether a group is in copies or torn: one a seal must store before its members may be
     * moved or its mark cleared ({@link Repairer#seal}).
     */
    public boolean unsealed() {
      return findings.stream().anyMatch(g -> g.inCopies() || g.state() == State.TORN);
    }

    public State worst() {
      State w = State.PROTECTED;
      for (Map.Entry<State, Long> e : counts.entrySet()) {
        if (e.getValue() > 0 && e.getKey().ordinal() > w.ordinal()) {
          w = e.getKey();
        }
      }
      return w;
    }
  }

  /** Findings listed per file at most. */
  public static final int MAX_FINDINGS = 100;

  private final MemberIo chunks;

  public GroupCheck(ParityClient client) {
    this.chunks = client.memberIo();
  }

  /** A check over {@code members} (tests: a fake {@link MemberIo}, no cluster). */
  GroupCheck(MemberIo members) {
    this.chunks = members;
  }

  /** Checks every group of {@code f} (none for a file without a policy across nodes). */
  public Report check(FileStatus f) throws IOException {
    return check(f, 0);
  }

  /**
   * Checks the groups of {@code f} from group {@code from} on (a seal mark's first group that
   * may hold copies); the report counts only those.
   */
  public Report check(FileStatus f, long from) throws IOException {
    Layout layout = f.layout();
    Map<State, Long> counts = new EnumMap<>(State.class);
    List<Finding> findings = new ArrayList<>();
    if (f.isDirectory() || f.isSymlink() || layout.across().isNone()) {
      return new Report(f.path(), layout.across().toString(), 0, counts, findings);
    }
    ChunkMap map = ChunkMap.of(layout);
    long groups = map.groups(f.length());
    long checked = 0;
    for (long g = Math.max(0, from); g < groups; g++) {
      if (f.holes().contains(g)) {
        continue;
      }
      checked++;
      Finding found = layout.across().isErasureCoded() ? ec(f, map, g) : mirror(f, map, g);
      counts.merge(found.state(), 1L, Long::sum);
      if (found.state() != State.PROTECTED && findings.size() < MAX_FINDINGS) {
        findings.add(found);
      }
    }
    return new Report(f.path(), layout.across().toString(), checked, counts, findings);
  }

  private Finding ec(FileStatus f, ChunkMap map, long g) throws IOException {
    int k = f.layout().across().data();
    int m = f.layout().across().parity();
    int present = (int) Math.min(k, map.dataChunks(f.length()) - g * k);
    Map<RoundTag, Integer> usable = new HashMap<>();
    List<String> notUsable = new ArrayList<>();
    boolean unreachable = false;
    Map<String, RoundTag> seen = new HashMap<>(); // answering, unrecorded member -> its tag
    ChunkStat[] stats = new ChunkStat[k + m];
    for (int j = 0; j < k + m; j++) {
      String t = f.layout().targets().get(map.memberPosition(g, j));
      Seen s = member(f, t, g, map.memberIndex(g, j), j, notUsable);
      stats[j] = s.stat();
      unreachable |= s.unreachable();
      if (!s.noted() && (j < present || j >= k)) {
        seen.put(t, s.stat() != null ? s.stat().tag() : null); // null: missing or untagged
      }
      if (s.stat() != null && s.stat().tagged()) {
        usable.merge(s.stat().tag(), 1, Integer::sum);
      } else if (!s.noted() && (s.stat() != null || j < present || j >= k)) {
        notUsable.add("member " + j + " on " + t + (s.stat() != null ? ": untagged"
            : ": missing"));
      }
    }
    // the newest round that covers the length and can be decoded
    RoundTag best = null;
    for (Map.Entry<RoundTag, Integer> e : usable.entrySet()) {
      int c = e.getKey().count();
      if (c >= present && e.getValue() >= c && (best == null
          || e.getKey().newerThan(best))) {
        best = e.getKey();
      }
    }
    String detail = "rounds " + usable + " ((generation, round/count)=members), " + present
        + " data chunks in the length" + (notUsable.isEmpty() ? "" : "; " + notUsable);
    Finding tail = tail(f, map, g, present, best, stats, detail);
    if (tail != null) {
      return tail;
    }
    if (best == null) {
      return new Finding(g, unreachable ? State.UNAVAILABLE : State.UNRECOVERABLE, detail,
          List.of());
    }
    int c = best.count();
    if (c > present) {
      return new Finding(g, State.TORN, detail, List.of());
    }
    List<String> unrecorded = new ArrayList<>();
    for (Map.Entry<String, RoundTag> e : seen.entrySet()) {
      if (!best.equals(e.getValue())) {
        unrecorded.add(e.getKey()); // missing, or of another round
      }
    }
    return new Finding(g, usable.get(best) >= c + m ? State.PROTECTED : State.UNDER_PROTECTED,
        detail, unrecorded);
  }

  /**
   * Group {@code g} when its newest content is in copies (a copy tag newer than round {@code
   * best}, or no round): TAIL when each data chunk within the length has M+1 copies holding
   * the bytes the length covers of it (its own member and its copies on the parity targets),
   * UNDER_PROTECTED when it has fewer but one; null when the group is not in copies, or a
   * chunk has none (the rounds decide then). Marked {@code inCopies}: a hand-off seals it
   * ({@code Repairer#handOff}).
   */
  private Finding tail(FileStatus f, ChunkMap map, long g, int present, RoundTag best,
      ChunkStat[] stats, String detail) throws IOException {
    int k = f.layout().across().data();
    int m = f.layout().across().parity();
    int[] copies = new int[present];
    RoundTag newest = null;
    long chunkSize = f.layout().chunkSize();
    for (int j = 0; j < k + m; j++) {
      if (j >= present && j < k) {
        continue;
      }
      String t = f.layout().targets().get(map.memberPosition(g, j));
      if (f.repairs().stale(t, g)) {
        continue;
      }
      for (int i = j < k ? j : 0; i < (j < k ? j + 1 : present); i++) {
        ChunkStat s = j < k ? stats[j]
            : chunks.statMember(t, f.id(), map.memberIndex(g, i)).orElse(null);
        if (s == null || s.tag() == null || !s.tag().isCopy()) {
          continue;
        }
        if (s.tag().newerThan(newest)) {
          newest = s.tag();
        }
        long need = Math.min(chunkSize, f.length() - (g * k + i) * chunkSize);
        copies[i] += s.length() >= need ? 1 : 0;
      }
    }
    if (newest == null || !newest.newerThan(best)) {
      return null;
    }
    int least = java.util.Arrays.stream(copies).min().orElse(0);
    if (least == 0) {
      return null;
    }
    // sealed from its copies, never handed over through the record: a record entry would
    // take a parity target's copies from readers too, which may be all the group has
    return new Finding(g, least >= m + 1 ? State.TAIL : State.UNDER_PROTECTED, "in copies ("
        + least + " of each data chunk, newest tag " + newest + "); " + detail, List.of(), true);
  }

  private Finding mirror(FileStatus f, ChunkMap map, long g) throws IOException {
    long need = Math.min(f.layout().chunkSize(), f.length() - g * f.layout().chunkSize());
    int good = 0;
    boolean unreachable = false;
    List<String> notUsable = new ArrayList<>();
    List<String> unrecorded = new ArrayList<>();
    for (int c = 0; c < map.copies(); c++) {
      String t = f.layout().targets().get(map.copyPosition(g, c));
      Seen s = member(f, t, g, (int) g, c, notUsable);
      unreachable |= s.unreachable();
      if (s.stat() != null && s.stat().length() >= need) {
        good++;
      } else if (!s.noted()) {
        unrecorded.add(t);
        notUsable.add("copy " + c + " on " + t + (s.stat() != null ? ": " + s.stat().length()
            + " bytes of " + need : ": missing"));
      }
    }
    String detail = good + " of " + map.copies() + " copies"
        + (notUsable.isEmpty() ? "" : "; " + notUsable);
    State state = good == map.copies() ? State.PROTECTED : good > 0 ? State.UNDER_PROTECTED
        : unreachable ? State.UNAVAILABLE : State.UNRECOVERABLE;
    return new Finding(g, state, detail, state == State.UNDER_PROTECTED ? unrecorded
        : List.of());
  }

  /**
   * What was seen of a member: its stat (null: none to use), whether why was noted already, and
   * whether its target could not be reached.
   */
  private record Seen(ChunkStat stat, boolean noted, boolean unreachable) {}

  private Seen member(FileStatus f, String t, long g, int index, int j, List<String> notUsable)
      throws IOException {
    if (f.repairs().stale(t, g)) {
      notUsable.add("member " + j + " on " + t + ": in the repair record");
      return new Seen(null, true, false);
    }
    // asked whenever the registry has it online, suspect or not: a check must not report a
    // node that is back as unreachable because a transfer failed while it was away
    Optional<ChunkStat> s = chunks.reachable(t) ? chunks.statMember(t, f.id(), index)
        : Optional.empty();
    if (s.isEmpty() && !chunks.healthy(t)) {
      notUsable.add("member " + j + " on " + t + ": target unreachable");
      return new Seen(null, true, true);
    }
    return new Seen(s.orElse(null), false, false);
  }
}
