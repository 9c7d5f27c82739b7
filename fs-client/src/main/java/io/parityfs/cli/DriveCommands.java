package io.parityfs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.client.NodeAdminClient;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.FailDriveRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.ReplaceDriveRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The RAID array of a target, over the storage-node protocol's admin operations: drives
 * (ARRAY_STATUS), fail-drive, replace-drive, rebuild and scrub (PROGRESS, the task operations).
 * The node answers JSON; {@code --json} passes it on, otherwise it is shown as tables and lines.
 */
final class DriveCommands {
  private DriveCommands() {}

  static JsonNode parse(String json) throws IOException {
    return Json.MAPPER.readTree(json);
  }

  /** The ARRAY_STATUS entry of {@code t}, with the node id added. */
  static JsonNode arrayStatus(Session s, NodeTarget t) throws IOException, CliException {
    JsonNode all = parse(s.client().nodes().admin().arrayStatus(t.address(), t.id()));
    for (JsonNode e : all.path("targets")) {
      if (t.info().id().equals(e.path("id").asText())) {
        ((ObjectNode) e).put("nodeId", all.path("nodeId").asText());
        return e;
      }
    }
    throw new CliException(ExitStatus.NOT_FOUND, t.info().id(),
        "NOT_FOUND: the node does not report this target");
  }

  /** An ARRAY_STATUS entry as lines and a drive table. */
  static void printArray(PrintWriter out, JsonNode e) {
    out.println("target " + e.path("id").asText() + " (" + e.path("name").asText() + ")"
        + (e.has("nodeId") ? " on node " + e.path("nodeId").asText() : "") + ": "
        + e.path("state").asText());
    out.println("  protection " + e.path("protection").asText() + ", cell "
        + Sizes.human(e.path("cellSize").asLong()) + ", max chunk "
        + Sizes.human(e.path("maxChunkSize").asLong()) + ", codec " + e.path("codec").asText());
    out.println("  capacity " + Sizes.human(e.path("capacityBytes").asLong()) + ", free "
        + Sizes.human(e.path("freeBytes").asLong()));
    Table t = new Table("rll");
    t.row("SLOT", "STATE", "PATH");
    for (JsonNode d : e.path("drives")) {
      t.row(d.path("slot").asInt(), d.path("state").asText(), d.path("path").asText());
    }
    t.print(out);
    for (JsonNode task : e.path("tasks")) {
      out.println(taskLine(task));
    }
    out.flush();
  }

  static String taskLine(JsonNode task) {
    String slot = task.path("slot").asInt() == ArrayTaskRequest.ALL_SLOTS ? ""
        : " slot " + task.path("slot").asInt();
    return task.path("kind").asText() + slot + ": " + task.path("state").asText() + "  "
        + ProgressLine.text(task.path("bytesDone").asLong(), task.path("bytesTotal").asLong(),
            task.path("bytesPerSecond").asDouble(), eta(task));
  }

  private static Double eta(JsonNode task) {
    JsonNode e = task.path("etaSeconds");
    return e.isNumber() ? e.asDouble() : null;
  }

  /** The tasks of {@code kind} (rebuild, scrub) the node reports for {@code t}. */
  static List<JsonNode> tasks(Session s, NodeTarget t, String kind) throws IOException,
      CliException {
    JsonNode p = parse(s.client().nodes().admin().progress(t.address(), t.id()));
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode task : p.path("tasks")) {
      if (kind.equals(task.path("kind").asText())
          && t.info().id().equals(task.path("target").asText())) {
        out.add(task);
      }
    }
    return out;
  }

  /** The JSON document of a target's tasks of one kind: {@code {target, kind, tasks}}. */
  static ObjectNode tasksDocument(NodeTarget t, String kind, List<JsonNode> tasks) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("target", t.info().id());
    m.put("kind", kind);
    m.set("tasks", Json.MAPPER.valueToTree(tasks));
    return m;
  }

  /** A node's reply to a task command: as JSON, or one line per task. */
  static void printReply(Session s, JsonNode reply) {
    if (s.json()) {
      s.printJson(reply);
    } else {
      reply.path("tasks").forEach(task -> s.out().println(taskLine(task)));
    }
  }

  /** The tasks of {@code kind} on {@code t} now: as JSON, one line each, or {@code none}. */
  static void printTasks(Session s, NodeTarget t, String kind, String none)
      throws IOException, CliException {
    List<JsonNode> tasks = tasks(s, t, kind);
    if (s.json()) {
      s.printJson(tasksDocument(t, kind, tasks));
    } else if (tasks.isEmpty()) {
      s.out().println(none);
    } else {
      tasks.forEach(task -> s.out().println(taskLine(task)));
    }
  }

  static boolean ended(JsonNode task) {
    String state = task.path("state").asText();
    return switch (state) {
      case "DONE", "STOPPED", "FAILED", "IDLE" -> true;
      default -> false;
    };
  }

  /**
   * Follows the tasks of {@code kind} on {@code t} until they end, showing progress every
   * {@code interval} seconds. Ctrl-C ends the watching only: the task runs on in the node.
   *
   * <p>A rebuild that completes leaves the node's list (its slot goes ONLINE): one seen before
   * and gone now, or the {@code replaced} slot never seen but ONLINE, is reported DONE. While
   * the {@code replaced} slot is REBUILDING with no task listed for it (not yet, or no longer),
   * the watch goes on (up to a minute).
   *
   * @param justStarted a scrub this command started: wait up to a grace period for it to show
   *     as running before taking "not running" as "finished"
   * @param replaced the slot a replace-drive just gave a new drive, or null
   * @return OK when every task ended DONE, FAILED otherwise
   */
  /** How long a replaced slot may stay REBUILDING with no rebuild task listed for it. */
  private static final long SLOT_WAIT_NANOS = 60_000_000_000L;

  static ExitStatus watch(Session s, NodeTarget t, String kind, double interval,
      boolean justStarted, Integer replaced) throws IOException, CliException {
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
      Map<Integer, JsonNode> lastSeen = new TreeMap<>();
      while (true) {
        List<JsonNode> tasks = tasks(s, t, kind);
        Set<Integer> present = new HashSet<>();
        for (JsonNode task : tasks) {
          lastSeen.put(task.path("slot").asInt(), task);
          present.add(task.path("slot").asInt());
        }
        if (s.json()) {
          s.printJson(tasksDocument(t, kind, tasks));
        }
        boolean allEnded = tasks.stream().allMatch(DriveCommands::ended);
        if (!allEnded) {
          seen = true;
        }
        boolean waitForStart = justStarted && !seen && System.nanoTime() < graceEnd;
        if (allEnded && !waitForStart && replaced != null && !lastSeen.containsKey(replaced)
            && System.nanoTime() < slotWaitEnd) {
          // no task listed for the new drive yet (or no longer), but its slot is still being
          // rebuilt: the slot's state, not the task list, says when it is over
          waitForStart = arrayStatus(s, t).path("drives").path(replaced).path("state")
              .asText().equals("REBUILDING");
        }
        if (!s.json() && !tasks.isEmpty() && !(allEnded && !s.terminal())) {
          show(line, kind, tasks);
        }
        if (allEnded && !waitForStart) {
          line.finish();
          boolean ok = true;
          for (JsonNode task : tasks) {
            ok &= task.path("state").asText().equals("DONE")
                || task.path("state").asText().equals("IDLE");
            if (!s.json()) {
              s.out().println(taskLine(task));
            }
          }
          if (kind.equals("rebuild")) {
            ok &= reportCompleted(s, t, lastSeen, present, replaced);
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

  /** Rebuilds that left the node's list: complete (see {@link #watch}). */
  private static boolean reportCompleted(Session s, NodeTarget t,
      Map<Integer, JsonNode> lastSeen, Set<Integer> present,
      Integer replaced) throws IOException, CliException {
    boolean ok = true;
    JsonNode array = null;
    if (replaced != null && !lastSeen.containsKey(replaced)) {
      array = arrayStatus(s, t);
      String state = array.path("drives").path(replaced).path("state").asText();
      ok = state.equals("ONLINE");
      if (!s.json()) {
        s.out().println("rebuild slot " + replaced + ": " + (ok ? "DONE" : "FAILED")
            + " (before the first poll; slot " + state + ")");
      }
    }
    for (JsonNode task : lastSeen.values()) {
      int slot = task.path("slot").asInt();
      if (!present.contains(slot) && !s.json()) {
        long total = task.path("bytesTotal").asLong();
        s.out().println("rebuild slot " + slot + ": DONE  " + ProgressLine.text(total, total,
            task.path("bytesPerSecond").asDouble(), 0.0));
      }
    }
    if (lastSeen.isEmpty() && replaced == null && !s.json()) {
      array = arrayStatus(s, t);
      s.out().println("no rebuild running on target " + t.info().id() + "; array "
          + array.path("state").asText());
    }
    return ok;
  }

  private static void show(ProgressLine line, String kind, List<JsonNode> tasks) {
    long done = 0;
    long total = 0;
    double rate = 0;
    StringBuilder slots = new StringBuilder();
    String state = null;
    for (JsonNode task : tasks) {
      done += task.path("bytesDone").asLong();
      total += task.path("bytesTotal").asLong();
      rate += task.path("bytesPerSecond").asDouble();
      int slot = task.path("slot").asInt();
      if (slot != ArrayTaskRequest.ALL_SLOTS) {
        slots.append(slots.length() == 0 ? " slot " : ",").append(slot);
      }
      state = state == null || ended(task) ? task.path("state").asText() : state;
    }
    Double eta = rate > 0 ? Math.max(0, total - done) / rate : null;
    line.update(kind + slots, done, total, rate, eta, state);
  }

  /** Default poll period: 1 s on a terminal, 5 s otherwise. */
  static double interval(Session s, Double asked) {
    if (asked != null) {
      if (asked <= 0 || asked > 3600) {
        throw new IllegalArgumentException("--interval (" + asked + ") must be in (0, 3600]"
            + " seconds");
      }
      return asked;
    }
    return s.terminal() ? 1 : 5;
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
        JsonNode e = arrayStatus(s, NodeTarget.resolve(s, target));
        if (s.json()) {
          s.printJson(e);
        } else {
          printArray(s.out(), e);
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
        JsonNode e = parse(s.client().nodes().admin().failDrive(t.address(), t.id(), slot,
            force ? FailDriveRequest.FORCE : 0));
        if (s.json()) {
          s.printJson(e);
        } else {
          s.out().println("slot " + slot + " of target " + t.info().id() + " failed; array "
              + e.path("state").asText());
          printArray(s.out(), e);
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

    @Option(names = "--watch", description = "then follow the rebuild until it ends")
    boolean watch;

    @Option(names = "--interval", paramLabel = "<seconds>", description = "poll period of"
        + " --watch (default 1 on a terminal, 5 otherwise)")
    Double interval;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = interval(s, interval);
        NodeAdminClient nodes = s.client().nodes().admin();
        JsonNode e = parse(nodes.replaceDrive(t.address(), t.id(), slot, path,
            force ? ReplaceDriveRequest.FORCE : 0));
        if (s.json()) {
          s.printJson(e);
        } else {
          s.out().println("slot " + slot + " of target " + t.info().id() + " replaced by "
              + path + "; array " + e.path("state").asText());
          printArray(s.out(), e);
        }
        if (watch && watch(s, t, "rebuild", period, false, slot) != ExitStatus.OK) {
          throw new CliException(ExitStatus.FAILED, t.info().id(),
              "REBUILD_FAILED: the rebuild did not complete");
        }
      });
    }
  }

  /** {@code rebuild TARGET [--watch | --stop]}. */
  @Command(name = "rebuild", description = {"Show the rebuilds of a target (bytes done/total,"
      + " rate, ETA); --watch follows them until they end (Ctrl-C stops watching, not the"
      + " rebuild); --stop stops them.",
      "Rebuilds start by themselves: replace-drive, a hot spare, or a stopped rebuild when the"
      + " node next opens the array."})
  static final class Rebuild extends CliCommand {
    @Parameters(paramLabel = "TARGET")
    String target;

    @Option(names = "--watch", description = "follow until every rebuild ended")
    boolean watch;

    @Option(names = "--stop", description = "stop the rebuilds (of --slot, else all)")
    boolean stop;

    @Option(names = "--slot", paramLabel = "<n>", description = "the slot --stop applies to")
    Integer slot;

    @Option(names = "--interval", paramLabel = "<seconds>", description = "poll period of"
        + " --watch (default 1 on a terminal, 5 otherwise)")
    Double interval;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = interval(s, interval);
        if (stop) {
          printReply(s, parse(s.client().nodes().admin().arrayTask(t.address(), Opcode.STOP_REBUILD,
              t.id(), slot == null ? ArrayTaskRequest.ALL_SLOTS : slot)));
          return;
        }
        if (watch) {
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
  @Command(name = "scrub", description = "Start a scrub of a target (read and check every cell,"
      + " repair what is wrong); --watch follows it, --status only shows, --stop stops it.")
  static final class Scrub extends CliCommand {
    @Parameters(paramLabel = "TARGET")
    String target;

    @Option(names = "--watch", description = "follow until the scrub ends")
    boolean watch;

    @Option(names = "--stop", description = "stop a running scrub")
    boolean stop;

    @Option(names = "--status", description = "show the scrub's progress; start nothing")
    boolean status;

    @Option(names = "--interval", paramLabel = "<seconds>", description = "poll period of"
        + " --watch (default 1 on a terminal, 5 otherwise)")
    Double interval;

    @Override
    void run(Session s) throws CliException {
      each(s, target, () -> {
        NodeTarget t = NodeTarget.resolve(s, target);
        double period = interval(s, interval);
        boolean started = false;
        if (!status) {
          Opcode op = stop ? Opcode.STOP_SCRUB : Opcode.START_SCRUB;
          JsonNode r = parse(s.client().nodes().admin().arrayTask(t.address(), op, t.id(),
              ArrayTaskRequest.ALL_SLOTS));
          started = !stop;
          if (!watch) {
            printReply(s, r);
            return;
          }
        }
        if (watch) {
          if (watch(s, t, "scrub", period, started, null) != ExitStatus.OK) {
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
