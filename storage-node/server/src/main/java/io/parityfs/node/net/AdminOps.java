package io.parityfs.node.net;

import io.parityfs.node.NodeServices;
import io.parityfs.node.TargetView;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.admin.AdminCodec;
import io.parityfs.node.protocol.admin.ArrayStatus;
import io.parityfs.node.protocol.admin.ArrayTask;
import io.parityfs.node.protocol.admin.DriveSlot;
import io.parityfs.node.protocol.admin.NodeInfo;
import io.parityfs.node.protocol.admin.Progress;
import io.parityfs.node.protocol.admin.ScrubResult;
import io.parityfs.node.protocol.admin.TargetStatus;
import io.parityfs.node.protocol.admin.TargetSummary;
import io.parityfs.node.protocol.admin.TaskReply;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.ScrubProgress;
import io.parityfs.raid.array.repair.ScrubReport;
import io.parityfs.raid.array.repair.Scrubber;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * The administrative operations and their answers, the documents of {@code
 * io.parityfs.node.protocol.admin} in {@link AdminCodec}'s JSON. Runs on a worker thread (the
 * array's admin calls block); a scrub started here runs on the server's background executor.
 *
 * <pre>
 * NODE_INFO     NodeInfo      {"schema":1,"nodeId","version","targets":[{"id","name","protection",
 *                             "state"}]}
 * ARRAY_STATUS  ArrayStatus   {"schema":1,"nodeId","targets":[TargetStatus without the schema]}
 * PROGRESS      Progress      {"schema":1,"nodeId","tasks":[{"target","kind":"rebuild"|"scrub",
 *                             "slot","state","bytesDone","bytesTotal","bytesPerSecond",
 *                             "etaSeconds","objectsDone","objectsTotal","objectsLost",
 *                             "elapsedSeconds"[,"result":ScrubResult]}]} (a rebuild that
 *                             ended: its result; a scrub DONE: its result, the scrubber's last
 *                             report)
 * FAIL_DRIVE, REPLACE_DRIVE: TargetStatus {"schema":1,"id","name","state","protection",
 *                             "cellSize","maxChunkSize","capacityBytes","freeBytes","codec",
 *                             "drives":[{"slot","state","path"}],"tasks":[...]}
 * START/STOP_REBUILD, START/STOP_SCRUB: TaskReply {"schema":1,"target","tasks":[...]} (the
 *                             tasks of that kind)
 * </pre>
 */
final class AdminOps {
  static final String VERSION = versionOf();

  private final NodeServices services;
  private final ExecutorService background;

  AdminOps(NodeServices services, ExecutorService background) {
    this.services = services;
    this.background = background;
  }

  String nodeInfo() {
    List<TargetSummary> targets = new ArrayList<>();
    for (TargetView t : services.targets()) {
      targets.add(new TargetSummary(t.id(), t.name(), t.protection(), t.state().name()));
    }
    return AdminCodec.encode(new NodeInfo(services.nodeId(), VERSION, targets));
  }

  String arrayStatus(List<TargetView> targets) {
    return AdminCodec.encode(new ArrayStatus(services.nodeId(),
        targets.stream().map(this::status).toList()));
  }

  String progress(List<TargetView> targets) {
    List<ArrayTask> tasks = new ArrayList<>();
    for (TargetView t : targets) {
      tasks.addAll(rebuilds(t));
      scrub(t).ifPresent(tasks::add);
    }
    return AdminCodec.encode(new Progress(services.nodeId(), tasks));
  }

  /**
   * Fails the slot; without {@code force}, refused (ILLEGAL_STATE, naming the unavailable slots)
   * when that would leave the array beyond what its protection tolerates.
   */
  String failDrive(TargetView t, int slot, boolean force) throws IOException {
    requireDataSlot(t, slot);
    DriveState s = t.array().driveStates()[slot];
    if (s != DriveState.ONLINE && s != DriveState.REBUILDING) {
      throw new IllegalStateException("slot " + slot + " of target " + t.name() + " is " + s);
    }
    try {
      t.array().failDrive(slot, force);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("target " + t.name() + ": " + e.getMessage()
          + " (FAIL_DRIVE with FORCE; parityfs fail-drive --force)", e);
    }
    return AdminCodec.encode(status(t));
  }

  String replaceDrive(TargetView t, int slot, String path, boolean force) throws IOException {
    requireDataSlot(t, slot);
    DriveState s = t.array().driveStates()[slot];
    if (s != DriveState.FAILED && s != DriveState.MISSING) {
      throw new IllegalStateException("slot " + slot + " of target " + t.name() + " is " + s
          + "; only a FAILED or MISSING slot takes a new drive");
    }
    t.array().replaceDrive(slot, Path.of(path), force);
    return AdminCodec.encode(status(t));
  }

  String arrayTask(TargetView t, Opcode op, int slot) {
    Scrubber scrubber = t.array().scrubber();
    switch (op) {
      case START_REBUILD -> {
        // The array starts rebuilds itself (REPLACE_DRIVE, a hot spare, or at open for a slot
        // whose rebuild was stopped); this reports the ones running, or says why none can start.
        boolean running = t.array().rebuilds().entrySet().stream().anyMatch(e ->
            (slot == ArrayTaskRequest.ALL_SLOTS || e.getKey() == slot)
                && !e.getValue().state().ended());
        if (!running) {
          throw new IllegalStateException("no rebuild of target " + t.name() + " slot "
              + slotName(slot) + " to run: rebuilds start with REPLACE_DRIVE or a hot spare,"
              + " and a stopped rebuild resumes when the node next opens the array");
        }
      }
      case STOP_REBUILD -> {
        if (slot == ArrayTaskRequest.ALL_SLOTS) {
          t.array().rebuilds().keySet().forEach(t.array()::stopRebuild);
        } else {
          requireDataSlot(t, slot);
          t.array().stopRebuild(slot);
        }
      }
      case START_SCRUB -> {
        if (scrubber.running()) {
          throw new IllegalStateException("a scrub of target " + t.name() + " is running");
        }
        background.execute(scrubber::tryRun);
      }
      case STOP_SCRUB -> scrubber.stop();
      default -> throw new IllegalArgumentException("not an array task: " + op);
    }
    boolean scrub = op == Opcode.START_SCRUB || op == Opcode.STOP_SCRUB;
    List<ArrayTask> tasks = scrub
        ? List.of(scrubTask(t, scrubber.progress(), op == Opcode.START_SCRUB)) : rebuilds(t);
    return AdminCodec.encode(new TaskReply(t.id(), tasks));
  }

  // ---- the documents' pieces ----

  private TargetStatus status(TargetView t) {
    var config = t.array().labels().config();
    DriveState[] states = t.array().driveStates();
    List<DriveSlot> drives = new ArrayList<>();
    for (ArraySlot s : t.array().labels().slots()) {
      drives.add(new DriveSlot(s.slot(), states[s.slot()].name(),
          s.drivePath().map(Path::toString).orElse("")));
    }
    List<ArrayTask> tasks = new ArrayList<>(rebuilds(t));
    scrub(t).ifPresent(tasks::add);
    return new TargetStatus(t.id(), t.name(), t.state().name(), t.protection(), config.cellSize(),
        config.maxObjectSize(), t.capacityBytes(), t.freeBytes(),
        t.codec().map(c -> c.chosen().label()).orElse("none"), drives, tasks);
  }

  /**
   * The target's rebuilds by slot: those running, and for the other slots the result of the
   * last one that ended ({@code RaidArray#endedRebuilds}: a rebuild faster than the first poll
   * is reported with what it did). Running ones are read first: a rebuild that ends meanwhile
   * is then still found among the ended ones.
   */
  private List<ArrayTask> rebuilds(TargetView t) {
    Map<Integer, RebuildProgress> all = new TreeMap<>(t.array().rebuilds());
    t.array().endedRebuilds().forEach(all::putIfAbsent);
    List<ArrayTask> out = new ArrayList<>();
    for (Map.Entry<Integer, RebuildProgress> r : all.entrySet()) {
      RebuildProgress p = r.getValue();
      out.add(new ArrayTask(t.id(), ArrayTask.REBUILD, r.getKey(), p.state().name(),
          p.bytesDone(), p.bytesTotal(), p.bytesPerSecond(), seconds(p.eta()), p.objectsDone(),
          p.objectsTotal(), p.objectsLost(), p.elapsed().toNanos() / 1e9));
    }
    return out;
  }

  private Optional<ArrayTask> scrub(TargetView t) {
    ScrubProgress p = t.array().scrubber().progress();
    if (p == null || (!p.running() && p.bytesTotal() == 0 && p.objectsTotal() == 0)) {
      return Optional.empty();
    }
    return Optional.of(scrubTask(t, p, false));
  }

  private static ArrayTask scrubTask(TargetView t, ScrubProgress p, boolean starting) {
    if (p == null) {
      return new ArrayTask(t.id(), ArrayTask.SCRUB, ArrayTaskRequest.ALL_SLOTS,
          starting ? "STARTING" : "IDLE", 0, 0, 0, null, 0, 0, 0, 0);
    }
    String state = p.running() ? "RUNNING" : starting ? "STARTING" : "DONE";
    // not running: the scrubber kept the report before it said so
    ScrubResult result = state.equals("DONE")
        ? t.array().scrubber().lastReport().map(AdminOps::result).orElse(null) : null;
    return new ArrayTask(t.id(), ArrayTask.SCRUB, ArrayTaskRequest.ALL_SLOTS, state,
        p.bytesDone(), p.bytesTotal(), p.bytesPerSecond(), seconds(p.eta()), p.objectsDone(),
        p.objectsTotal(), 0, p.elapsed().toNanos() / 1e9, result);
  }

  /** The wire form of a scrub report: what the command line shows of it. */
  static ScrubResult result(ScrubReport r) {
    return new ScrubResult(r.started().toString(), r.ended().toString(), r.cancelled(),
        r.objectsScanned(), r.stripes(), r.cellsChecked(), r.crcErrors(), r.parityMismatches(),
        r.missingShards(), r.repaired(), r.unavailableShards(), r.driveErrors(),
        r.unrecoverableObjects(), r.unrecoverableIds().stream().limit(ScrubResult.MAX_IDS)
            .map(id -> String.format("%016x", id)).toList());
  }

  private static Double seconds(Optional<Duration> eta) {
    return eta.map(d -> d.toMillis() / 1000.0).orElse(null);
  }

  private static void requireDataSlot(TargetView t, int slot) {
    int n = t.array().labels().dataSlots();
    if (slot < 0 || slot >= n) {
      throw new IllegalArgumentException("slot (" + slot + ") must be a data slot of target "
          + t.name() + ", 0.." + (n - 1));
    }
  }

  private static String slotName(int slot) {
    return slot == ArrayTaskRequest.ALL_SLOTS ? "(all)" : Integer.toString(slot);
  }

  private static String versionOf() {
    String v = AdminOps.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
