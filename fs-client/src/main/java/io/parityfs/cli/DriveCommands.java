package io.parityfs.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.client.NodeAdminClient;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.FailDriveRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.ReplaceDriveRequest;
import io.parityfs.node.protocol.admin.AdminCodec;
import io.parityfs.node.protocol.admin.ArrayStatus;
import io.parityfs.node.protocol.admin.ArrayTask;
import io.parityfs.node.protocol.admin.DriveSlot;
import io.parityfs.node.protocol.admin.Progress;
import io.parityfs.node.protocol.admin.TargetStatus;
import io.parityfs.node.protocol.admin.TaskReply;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The RAID array of a target, over the storage-node protocol's admin operations: drives
 * (ARRAY_STATUS), fail-drive, replace-drive, rebuild and scrub (PROGRESS, the task operations).
 * The node answers the documents of {@code io.parityfs.node.protocol.admin} ({@link AdminCodec});
 * {@code --json} prints their fields (without the schema number) as the node sent them, otherwise
 * they are shown as tables and lines.
 */
final class DriveCommands {
  /** How long a replaced slot may stay REBUILDING with no rebuild task listed for it. */
  private static final long SLOT_WAIT_NANOS = 60_000_000_000L;

  private DriveCommands() {}

  /** A target and the node that reported it (ARRAY_STATUS). */
  record Array(String nodeId, TargetStatus status) {
    /** The ARRAY_STATUS entry with the node id added last: what {@code drives --json} prints. */
    ObjectNode json() {
      ObjectNode e = Json.MAPPER.valueToTree(status);
      e.put("nodeId", nodeId);
      return e;
    }

    /** The state of drive {@code slot}, or "" when the array has no such slot. */
    String driveState(int slot) {
      List<DriveSlot> drives = status.drives();
      return slot >= 0 && slot < drives.size() ? drives.get(slot).state() : "";
    }
  }

  /** The ARRAY_STATUS entry of {@code t}, with the node id. */
  static Array arrayStatus(Session s, NodeTarget t) throws IOException, CliException {
    ArrayStatus all = AdminCodec.decode(s.client().nodes().admin().arrayStatus(t.address(),
        t.id()), ArrayStatus.class);
    for (TargetStatus e : all.targets()) {
      if (t.info().id().equals(e.id())) {
        return new Array(all.nodeId(), e);
      }
    }
    throw new CliException(ExitStatus.NOT_FOUND, t.info().id(),
        "NOT_FOUND: the node does not report this target");
  }

  /** An ARRAY_STATUS entry as lines and a drive table; {@code nodeId} null: not shown. */
  static void printArray(PrintWriter out, TargetStatus e, String nodeId) {
    out.println("target " + e.id() + " (" + e.name() + ")"
        + (nodeId != null ? " on node " + nodeId : "") + ": " + e.state());
    out.println("  protection " + e.protection() + ", cell " + Sizes.human(e.cellSize())
        + ", max chunk " + Sizes.human(e.maxChunkSize()) + ", codec " + e.codec());
    out.println("  capacity " + Sizes.human(e.capacityBytes()) + ", free "
        + Sizes.human(e.freeBytes()));
    Table t = new Table("rll");
    t.row("SLOT", "STATE", "PATH");
    for (DriveSlot d : e.drives()) {
      t.row(d.slot(), d.state(), d.path());
    }
    t.print(out);
    for (ArrayTask task : e.tasks()) {
      out.println(taskLine(task));
    }
    out.flush();
  }

  /**
   * A task's line: a rebuild that ended states its result ({@link RebuildResult}); otherwise
   * its state and figures, a finished scrub's counts after a dash.
   */
  static String taskLine(ArrayTask task) {
    if (RebuildResult.applies(task)) {
      return RebuildResult.line(task);
    }
    String slot = task.slot() == ArrayTaskRequest.ALL_SLOTS ? "" : " slot " + task.slot();
    return task.kind() + slot + ": " + task.state() + "  "
        + ProgressLine.text(task.bytesDone(), task.bytesTotal(), task.bytesPerSecond(),
            task.etaSeconds())
        + (task.result() == null ? "" : " - " + task.result().summary());
  }

  /** The tasks of {@code kind} (rebuild, scrub) the node reports for {@code t}. */
  static List<ArrayTask> tasks(Session s, NodeTarget t, String kind) throws IOException,
      CliException {
    Progress p = AdminCodec.decode(s.client().nodes().admin().progress(t.address(), t.id()),
        Progress.class);
    List<ArrayTask> out = new ArrayList<>();
    for (ArrayTask task : p.tasks()) {
      if (kind.equals(task.kind()) && t.info().id().equals(task.target())) {
        out.add(task);
      }
    }
    return out;
  }

  /** The JSON document of a target's tasks of one kind: {@code {target, kind, tasks}}. */
  static ObjectNode tasksDocument(NodeTarget t, String kind, List<ArrayTask> tasks) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("target", t.info().id());
    m.put("kind", kind);
    m.set("tasks", Json.MAPPER.valueToTree(tasks));
    return m;
  }

  /** A node's reply to a task command: as JSON, or one line per task. */
  static void printReply(Session s, TaskReply reply) {
    if (s.json()) {
      s.printJson(reply);
    } else {
      reply.tasks().forEach(task -> s.out().println(taskLine(task)));
    }
  }

  /** The node's reply to a task command. */
  static TaskReply arrayTask(Session s, NodeTarget t, Opcode op, int slot)
      throws IOException, CliException {
    return AdminCodec.decode(s.client().nodes().admin().arrayTask(t.address(), op, t.id(), slot),
        TaskReply.class);
  }

  /** The tasks of {@code kind} on {@code t} now: as JSON, one line each, or {@code none}. */
  static void printTasks(Session s, NodeTarget t, String kind, String none)
      throws IOException, CliException {
    List<ArrayTask> tasks = tasks(s, t, kind);
    if (s.json()) {
      s.printJson(tasksDocument(t, kind, tasks));
    } else if (tasks.isEmpty()) {
      s.out().println(none);
    } else {
      tasks.forEach(task -> s.out().println(taskLine(task)));
    }
  }

  /**
   * Follows the tasks of {@code kind} on {@code t} until they end, showing progress every
   * {@code interval} seconds. Ctrl-C ends the watching only: the task runs on in the node.
   *
   * <p>A rebuild that ended stays in the node's list with its result (DONE, STOPPED or FAILED,
   * what it rebuilt, in how long), which is what the final line states, also for a rebuild
   * that ended before the first poll. One no longer listed (its slot failed again, or an older
   * node) is reported with its slot's state, its result unknown. While the {@code replaced}
   * slot is REBUILDING with no task listed for it (not yet), the watch goes on (up to a
   * minute).
   *
   * @param justStarted a scrub this command started: wait up to a grace period for it to show
   *     as running, or for a result other than {@code resultBefore}, before taking "not running"
   *     as "finished"
   * @param resultBefore the {@code started} time of the scrub result the node showed before this
   *     command started a scrub (null: none): a result with another is this command's scrub
   * @param replaced the slot a replace-drive just gave a new drive, or null
   * @return OK when every task ended DONE (a rebuild: no object lost), FAILED otherwise
   * @throws CliException FAILED, DATA_LOST, when the scrub that ended found objects it could not
   *     recover (after its last line, with their ids)
   */
  static ExitStatus watch(Session s, NodeTarget t, String kind, double interval,
      boolean justStarted, Integer replaced) throws IOException, CliException {
    return watch(s, t, kind, interval, justStarted, null, replaced);
  }

  static ExitStatus watch(Session s, NodeTarget t, String kind, double interval,
      boolean justStarted, String resultBefore, Integer replaced)
      throws IOException, CliException {
    ProgressLine line = new ProgressLine(s.out(), s.terminal());
    Thread hook = null;
    if (s.terminal()) {
      hook = new Thread(() -> {
        line.finish();
        s.out().println("stopped watching; the " + kind + " goes on in the node");
        s.out().flush();
      }, "parityfs-watch-interrupted");
      Runtime.getRuntime().addShutdownHook(hook);
    }
    try {
      long graceEnd = System.nanoTime() + (long) (Math.max(2, 3 * interval) * 1e9);
      long slotWaitEnd = System.nanoTime() + SLOT_WAIT_NANOS;
      boolean seen = false;
      Map<Integer, ArrayTask> lastSeen = new TreeMap<>();
      while (true) {
        List<ArrayTask> tasks = tasks(s, t, kind);
        Set<Integer> present = new HashSet<>();
        for (ArrayTask task : tasks) {
          lastSeen.put(task.slot(), task);
          present.add(task.slot());
        }
        if (s.json()) {
          s.printJson(tasksDocument(t, kind, tasks));
        }
        boolean allEnded = tasks.stream().allMatch(ArrayTask::ended);
        if (!allEnded || tasks.stream().anyMatch(x -> x.result() != null
            && !x.result().started().equals(resultBefore))) {
          seen = true; // running, or ended with a result that was not there before
        }
        boolean waitForStart = justStarted && !seen && System.nanoTime() < graceEnd;
        if (allEnded && !waitForStart && replaced != null && !lastSeen.containsKey(replaced)
            && System.nanoTime() < slotWaitEnd) {
          // no task listed for the new drive yet (or no longer), but its slot is still being
          // rebuilt: the slot's state, not the task list, says when it is over
          waitForStart = arrayStatus(s, t).driveState(replaced).equals("REBUILDING");
        }
        if (!s.json() && !tasks.isEmpty() && !(allEnded && !s.terminal())) {
          show(line, kind, tasks);
        }
        if (allEnded && !waitForStart) {
          line.finish();
          boolean ok = true;
          for (ArrayTask task : tasks) {
            ok &= RebuildResult.applies(task) ? RebuildResult.complete(task)
                : task.state().equals("DONE") || task.state().equals("IDLE");
            if (!s.json()) {
              s.out().println(taskLine(task));
            }
          }
          for (ArrayTask task : tasks) {
            if (task.lostObjects()) {
              s.out().flush();
              throw new CliException(ExitStatus.FAILED, t.info().id(), "DATA_LOST: the scrub"
                  + " found " + task.result().unrecoverableObjects() + " unrecoverable objects"
                  + " (" + String.join(", ", task.result().unrecoverableIds()) + "); reads of"
                  + " them fail: restore their files from elsewhere");
            }
          }
          if (kind.equals("rebuild")) {
            ok &= reportVanished(s, t, lastSeen, present, replaced, seen);
          } else if (tasks.isEmpty() && !s.json()) {
            // a scrub of an empty array leaves no figures behind once it is over
            s.out().println(seen ? kind + ": DONE" : "no " + kind + " on target "
                + t.info().id());
          }
          s.out().flush();
          return ok ? ExitStatus.OK : ExitStatus.FAILED;
        }
        try {
          Thread.sleep((long) (interval * 1000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted watching the " + kind);
        }
      }
    } finally {
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is exiting (Ctrl-C): the hook runs
        }
      }
    }
  }

  /**
   * Rebuilds no longer listed, with no result (see {@link #watch}): judged by their slot's
   * state. Then, when no rebuild was seen running, says so ({@code seen}).
   */
  private static boolean reportVanished(Session s, NodeTarget t,
      Map<Integer, ArrayTask> lastSeen, Set<Integer> present,
      Integer replaced, boolean seen) throws IOException, CliException {
    boolean ok = true;
    Set<Integer> vanished = new TreeSet<>();
    for (int slot : lastSeen.keySet()) {
      if (!present.contains(slot)) {
        vanished.add(slot);
      }
    }
    if (replaced != null && !lastSeen.containsKey(replaced)) {
      vanished.add(replaced);
    }
    for (int slot : vanished) {
      String state = arrayStatus(s, t).driveState(slot);
      ok &= state.equals("ONLINE");
      if (!s.json()) {
        s.out().println("rebuild slot " + slot + ": no longer listed by the node; slot " + state
            + " (its result is unknown)");
      }
    }
    if (!seen && replaced == null && !s.json()) {
      s.out().println("no rebuild running on target " + t.info().id() + "; array "
          + arrayStatus(s, t).status().state());
    }
    return ok;
  }

  private static void show(ProgressLine line, String kind, List<ArrayTask> tasks) {
    long done = 0;
    long total = 0;
    double rate = 0;
    StringBuilder slots = new StringBuilder();
    String state = null;
    for (ArrayTask task : tasks) {
      done += task.bytesDone();
      total += task.bytesTotal();
      rate += task.bytesPerSecond();
      int slot = task.slot();
      if (slot != ArrayTaskRequest.ALL_SLOTS) {
        slots.append(slots.length() == 0 ? " slot " : ",").append(slot);
      }
      state = state == null || task.ended() ? task.state() : state;
    }
    Double eta = rate > 0 ? Math.max(0, total - done) / rate : null;
    line.update(kind + slots, done, total, rate, eta, state);
  }

  /** {@code drives TARGET}. */
  @Command(name = "drives", description = "The RAID array of a target: state, each drive slot"
      + " (ONLINE, FAILED, MISSING, REBUILDING, SPARE) and running tasks.")
  static final class Drives extends CliCommand {
    @Parameters(paramLabel = "TARGET", description = "target id or a unique prefix of it")
    String target;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        Array e = arrayStatus(s, NodeTarget.resolve(s, target));
        if (s.json()) {
          s.printJson(e.json());
        } else {
          printArray(s.out(), e.status(), e.nodeId());
        }
      });
    }
  }

  /** {@code fail-drive TARGET SLOT [--force]}. */
  @Command(name = "fail-drive", description = {"Mark a drive slot of a target FAILED (the array"
      + " serves degraded until replace-drive).",
      "TARGET must name exactly one target: its id or a prefix only it has (an empty prefix is"
      + " refused). The node refuses to fail a slot when that would leave more slots unavailable"
      + " than the array's protection tolerates, unless --force is given."})
  static final class FailDrive extends CliCommand {
    @Parameters(index = "0", paramLabel = "TARGET", description = "target id or a prefix of it"
        + " that no other target has")
    String target;

    @Parameters(index = "1", paramLabel = "SLOT")
    int slot;

    @Option(names = "--force", description = "fail the slot even beyond the array's tolerance"
        + " (the array goes FAILED: data it cannot reconstruct becomes unreadable)")
    boolean force;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = resolveOne(s, target);
        TargetStatus e = AdminCodec.decode(s.client().nodes().admin().failDrive(t.address(),
            t.id(), slot, force ? FailDriveRequest.FORCE : 0), TargetStatus.class);
        if (s.json()) {
          s.printJson(e);
        } else {
          s.out().println("slot " + slot + " of target " + t.info().id() + " failed; array "
              + e.state());
          printArray(s.out(), e, null);
        }
      });
    }
  }

  /**
   * The one target {@code arg} names, for commands that must not guess: an empty (or blank)
   * prefix, which every target has, is refused with the candidates listed, as is a prefix two
   * targets share ({@link NodeTarget#resolve}).
   */
  static NodeTarget resolveOne(Session s, String arg) throws CliException, IOException {
    if (arg.isBlank()) {
      List<String> ids = s.client().registry().targets().stream()
          .map(TargetInfo::id).toList();
      throw new CliException(ExitStatus.USAGE, "\"" + arg + "\"", "INVALID_ARGUMENT: an empty"
          + " target prefix matches every target; name one of " + ids);
    }
    return NodeTarget.resolve(s, arg);
  }

  /** {@code replace-drive TARGET SLOT PATH}. */
  @Command(name = "replace-drive", description = "Put a new, empty drive directory (on the"
      + " target's node) into a FAILED or MISSING slot; the node starts rebuilding it.")
  static final class ReplaceDrive extends CliCommand {
    @Parameters(index = "0", paramLabel = "TARGET")
    String target;

    @Parameters(index = "1", paramLabel = "SLOT")
    int slot;

    @Parameters(index = "2", paramLabel = "PATH", description = "the drive directory, a path on"
        + " the node")
    String path;

    @Option(names = "--force", description = "take a drive that is not blank")
    boolean force;

    @Mixin
    WatchOptions watching;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = watching.period(s);
        NodeAdminClient nodes = s.client().nodes().admin();
        TargetStatus e = AdminCodec.decode(nodes.replaceDrive(t.address(), t.id(), slot, path,
            force ? ReplaceDriveRequest.FORCE : 0), TargetStatus.class);
        if (s.json()) {
          s.printJson(e);
        } else {
          s.out().println("slot " + slot + " of target " + t.info().id() + " replaced by "
              + path + "; array " + e.state());
          printArray(s.out(), e, null);
        }
        if (watching.watch && watch(s, t, "rebuild", period, false, slot) != ExitStatus.OK) {
          throw new CliException(ExitStatus.FAILED, t.info().id(),
              "REBUILD_FAILED: the rebuild did not complete");
        }
      });
    }
  }

  /** {@code rebuild TARGET [--watch | --stop]}. */
  @Command(name = "rebuild", description = {"Show the rebuilds of a target (bytes done/total,"
      + " rate, ETA; for a slot whose last rebuild ended, its result); --watch follows them"
      + " until they end and prints each one's result (Ctrl-C stops watching, not the"
      + " rebuild); --stop stops them.",
      "Rebuilds start by themselves: replace-drive, a hot spare, or a stopped rebuild when the"
      + " node next opens the array."})
  static final class Rebuild extends CliCommand {
    @Parameters(paramLabel = "TARGET")
    String target;

    @Mixin
    WatchOptions watching;

    @Option(names = "--stop", description = "stop the rebuilds (of --slot, else all)")
    boolean stop;

    @Option(names = "--slot", paramLabel = "<n>", description = "the slot --stop applies to")
    Integer slot;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = watching.period(s);
        if (stop) {
          printReply(s, arrayTask(s, t, Opcode.STOP_REBUILD,
              slot == null ? ArrayTaskRequest.ALL_SLOTS : slot));
          return;
        }
        if (watching.watch) {
          if (watch(s, t, "rebuild", period, false, null) != ExitStatus.OK) {
            throw new CliException(ExitStatus.FAILED, t.info().id(),
                "REBUILD_FAILED: a rebuild ended STOPPED or FAILED");
          }
          return;
        }
        printTasks(s, t, "rebuild", "no rebuild running on target " + t.info().id());
      });
    }
  }

  /** {@code scrub TARGET [--watch | --stop | --status]}. */
  @Command(name = "scrub", description = {"Start a scrub of a target (read and check every"
      + " cell, repair what is wrong); --watch follows it, --status only shows, --stop stops it.",
      "A finished scrub shows what it found: objects checked, repairs, unrecoverable objects"
      + " with their ids. --watch exits 1 (DATA_LOST) when the scrub found any object it could"
      + " not recover."})
  static final class Scrub extends CliCommand {
    @Parameters(paramLabel = "TARGET")
    String target;

    @Mixin
    WatchOptions watching;

    @Option(names = "--stop", description = "stop a running scrub")
    boolean stop;

    @Option(names = "--status", description = "show the scrub's progress; start nothing")
    boolean status;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = watching.period(s);
        boolean started = false;
        String before = null;
        if (!status) {
          if (watching.watch && !stop) {
            before = tasks(s, t, "scrub").stream().filter(x -> x.result() != null)
                .map(x -> x.result().started()).findFirst().orElse(null);
          }
          Opcode op = stop ? Opcode.STOP_SCRUB : Opcode.START_SCRUB;
          TaskReply r = arrayTask(s, t, op, ArrayTaskRequest.ALL_SLOTS);
          started = !stop;
          if (!watching.watch) {
            printReply(s, r);
            return;
          }
        }
        if (watching.watch) {
          if (watch(s, t, "scrub", period, started, before, null) != ExitStatus.OK) {
            throw new CliException(ExitStatus.FAILED, t.info().id(),
                "SCRUB_FAILED: the scrub did not complete");
          }
          return;
        }
        printTasks(s, t, "scrub", "no scrub has run on target " + t.info().id()
            + " since the node started");
      });
    }
  }
}
