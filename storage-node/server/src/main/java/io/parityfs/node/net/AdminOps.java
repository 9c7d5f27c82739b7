package io.parityfs.node.net;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.node.NodeServices;
import io.parityfs.node.StorageTarget;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.ScrubProgress;
import io.parityfs.raid.array.repair.Scrubber;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * The administrative operations and their JSON answers. Runs on a worker thread (the array's
 * admin calls block); a scrub started here runs on the server's background executor.
 *
 * <pre>
 * NODE_INFO     {"nodeId","version","targets":[{"id","name","protection","state"}]}
 * ARRAY_STATUS  {"nodeId","targets":[{"id","name","state","protection","cellSize","maxChunkSize",
 *                "capacityBytes","freeBytes","codec","drives":[{"slot","state","path"}],
 *                "tasks":[...]}]}
 * PROGRESS      {"nodeId","tasks":[{"target","kind":"rebuild"|"scrub","slot","state",
 *                "bytesDone","bytesTotal","bytesPerSecond","etaSeconds"}]}
 * FAIL_DRIVE, REPLACE_DRIVE: the target's ARRAY_STATUS entry; START/STOP_REBUILD, START/STOP_SCRUB:
 *                {"target","tasks":[...]} (the tasks of that kind)
 * </pre>
 */
final class AdminOps {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String VERSION = versionOf();

  private final NodeServices services;
  private final ExecutorService background;

  AdminOps(NodeServices services, ExecutorService background) {
    this.services = services;
    this.background = background;
  }

  String nodeInfo() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodeId", services.nodeId());
    m.put("version", VERSION);
    List<Object> targets = new ArrayList<>();
    for (StorageTarget t : services.targets()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("id", t.id());
      e.put("name", t.name());
      e.put("protection", t.protection());
      e.put("state", t.state().name());
      targets.add(e);
    }
    m.put("targets", targets);
    return write(m);
  }

  String arrayStatus(List<StorageTarget> targets) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodeId", services.nodeId());
    m.put("targets", targets.stream().map(this::status).toList());
    return write(m);
  }

  String progress(List<StorageTarget> targets) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodeId", services.nodeId());
    List<Object> tasks = new ArrayList<>();
    for (StorageTarget t : targets) {
      tasks.addAll(rebuilds(t));
      scrub(t).ifPresent(tasks::add);
    }
    m.put("tasks", tasks);
    return write(m);
  }

  /**
   * Fails the slot; without {@code force}, refused (ILLEGAL_STATE, naming the unavailable slots)
   * when that would leave the array beyond what its protection tolerates.
   */
  String failDrive(StorageTarget t, int slot, boolean force) throws IOException {
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
    return write(status(t));
  }

  String replaceDrive(StorageTarget t, int slot, String path, boolean force) throws IOException {
    requireDataSlot(t, slot);
    DriveState s = t.array().driveStates()[slot];
    if (s != DriveState.FAILED && s != DriveState.MISSING) {
      throw new IllegalStateException("slot " + slot + " of target " + t.name() + " is " + s
          + "; only a FAILED or MISSING slot takes a new drive");
    }
    t.array().replaceDrive(slot, Path.of(path), force);
    return write(status(t));
  }

  String arrayTask(StorageTarget t, Opcode op, int slot) {
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
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", t.id());
    boolean scrub = op == Opcode.START_SCRUB || op == Opcode.STOP_SCRUB;
    List<Object> tasks = new ArrayList<>();
    if (scrub) {
      tasks.add(scrubTask(t, scrubber.progress(), op == Opcode.START_SCRUB));
    } else {
      tasks.addAll(rebuilds(t));
    }
    m.put("tasks", tasks);
    return write(m);
  }

  // ---- JSON pieces ----

  private Map<String, Object> status(StorageTarget t) {
    Map<String, Object> e = new LinkedHashMap<>();
    var config = t.array().labels().config();
    e.put("id", t.id());
    e.put("name", t.name());
    e.put("state", t.state().name());
    e.put("protection", t.protection());
    e.put("cellSize", config.cellSize());
    e.put("maxChunkSize", config.maxObjectSize());
    e.put("capacityBytes", t.capacityBytes());
    e.put("freeBytes", t.freeBytes());
    e.put("codec", t.codec().map(c -> c.chosen().label()).orElse("none"));
    DriveState[] states = t.array().driveStates();
    List<Object> drives = new ArrayList<>();
    for (ArraySlot s : t.array().labels().slots()) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("slot", s.slot());
      d.put("state", states[s.slot()].name());
      d.put("path", s.drivePath().map(Path::toString).orElse(""));
      drives.add(d);
    }
    e.put("drives", drives);
    List<Object> tasks = new ArrayList<>(rebuilds(t));
    scrub(t).ifPresent(tasks::add);
    e.put("tasks", tasks);
    return e;
  }

  private List<Object> rebuilds(StorageTarget t) {
    List<Object> out = new ArrayList<>();
    for (Map.Entry<Integer, RebuildProgress> r : t.array().rebuilds().entrySet()) {
      RebuildProgress p = r.getValue();
      out.add(task(t, "rebuild", r.getKey(), p.state().name(), p.bytesDone(), p.bytesTotal(),
          p.bytesPerSecond(), p.eta().map(d -> d.toMillis() / 1000.0).orElse(null)));
    }
    return out;
  }

  private java.util.Optional<Object> scrub(StorageTarget t) {
    ScrubProgress p = t.array().scrubber().progress();
    if (p == null || (!p.running() && p.bytesTotal() == 0 && p.objectsTotal() == 0)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(scrubTask(t, p, false));
  }

  private Map<String, Object> scrubTask(StorageTarget t, ScrubProgress p, boolean starting) {
    if (p == null) {
      return task(t, "scrub", ArrayTaskRequest.ALL_SLOTS, starting ? "STARTING" : "IDLE", 0, 0,
          0, null);
    }
    String state = p.running() ? "RUNNING" : starting ? "STARTING" : "DONE";
    return task(t, "scrub", ArrayTaskRequest.ALL_SLOTS, state, p.bytesDone(), p.bytesTotal(),
        p.bytesPerSecond(), p.eta().map(d -> d.toMillis() / 1000.0).orElse(null));
  }

  private static Map<String, Object> task(StorageTarget t, String kind, int slot, String state,
      long done, long total, double rate, Double eta) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", t.id());
    m.put("kind", kind);
    m.put("slot", slot);
    m.put("state", state);
    m.put("bytesDone", done);
    m.put("bytesTotal", total);
    m.put("bytesPerSecond", rate);
    m.put("etaSeconds", eta);
    return m;
  }

  private static void requireDataSlot(StorageTarget t, int slot) {
    int n = t.array().labels().dataSlots();
    if (slot < 0 || slot >= n) {
      throw new IllegalArgumentException("slot (" + slot + ") must be a data slot of target "
          + t.name() + ", 0.." + (n - 1));
    }
  }

  private static String slotName(int slot) {
    return slot == ArrayTaskRequest.ALL_SLOTS ? "(all)" : Integer.toString(slot);
  }

  private static String write(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String versionOf() {
    String v = AdminOps.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
