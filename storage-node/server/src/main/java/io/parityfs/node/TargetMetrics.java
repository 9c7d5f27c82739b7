package io.parityfs.node;

import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.repair.RebuildProgress;
import io.parityfs.raid.array.repair.ScrubProgress;
import io.parityfs.raid.codec.select.CodecSelection;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The gauges a node adds to its registry for its targets, read from the arrays at each scrape
 * (names in {@code docs/storage-node.md}, "Metrics"). State gauges are one series per possible
 * state, 1 for the current one, so an alert is {@code parityfs_target_state{state="FAILED"} == 1}.
 */
final class TargetMetrics {
  private TargetMetrics() {}

  static void register(PrometheusRegistry r, List<StorageTarget> targets,
      BooleanSupplier zooKeeperConnected) {
    GaugeWithCallback.builder().name("parityfs_target_state")
        .help("Array state of each target: 1 for the current state")
        .labelNames("target", "name", "state").callback(cb -> {
          for (StorageTarget t : targets) {
            ArrayState now = t.state();
            for (ArrayState s : ArrayState.values()) {
              cb.call(s == now ? 1 : 0, t.id(), t.name(), s.name());
            }
          }
        }).register(r);
    GaugeWithCallback.builder().name("parityfs_target_drive_state")
        .help("State of each drive slot: 1 for the current state")
        .labelNames("target", "slot", "state").callback(cb -> {
          for (StorageTarget t : targets) {
            DriveState[] states = t.array().driveStates();
            for (int slot = 0; slot < states.length; slot++) {
              for (DriveState s : DriveState.values()) {
                cb.call(s == states[slot] ? 1 : 0, t.id(), Integer.toString(slot), s.name());
              }
            }
          }
        }).register(r);
    GaugeWithCallback.builder().name("parityfs_target_capacity_bytes")
        .help("Chunk bytes the target can hold (estimate)").labelNames("target")
        .callback(cb -> targets.forEach(t -> cb.call(t.capacityBytes(), t.id()))).register(r);
    GaugeWithCallback.builder().name("parityfs_target_free_bytes")
        .help("Chunk bytes that still fit on the target (estimate)").labelNames("target")
        .callback(cb -> targets.forEach(t -> cb.call(t.freeBytes(), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_cells_repaired")
        .help("Cells found bad and rewritten from parity").labelNames("target")
        .callback(cb -> targets.forEach(
            t -> cb.call(t.array().store().cellsRepaired(), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_degraded_reads")
        .help("Cell reads served by reconstruction").labelNames("target")
        .callback(cb -> targets.forEach(
            t -> cb.call(t.array().store().degradedReads(), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_garbage_files_deleted")
        .help("Files garbage collection deleted (what failed writes and deletes left)")
        .labelNames("target").callback(cb -> targets.forEach(
            t -> cb.call(t.array().store().garbageDeleted(), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_garbage_passes")
        .help("Garbage collection passes on the running node (target.<n>.gcInterval)")
        .labelNames("target").callback(cb -> targets.forEach(
            t -> cb.call(t.array().store().garbagePasses(), t.id()))).register(r);
    rebuild(r, targets);
    scrub(r, targets);
    codec(r, targets);
    GaugeWithCallback.builder().name("parityfs_zookeeper_connected")
        .help("1 while the node's ZooKeeper session is connected")
        .callback(cb -> cb.call(zooKeeperConnected.getAsBoolean() ? 1 : 0)).register(r);
  }

  private static void rebuild(PrometheusRegistry r, List<StorageTarget> targets) {
    GaugeWithCallback.builder().name("parityfs_target_rebuild_done_bytes")
        .help("Cell bytes written by the rebuild of a slot").labelNames("target", "slot")
        .callback(cb -> eachRebuild(targets, (t, slot, p) -> cb.call(p.bytesDone(), t, slot)))
        .register(r);
    GaugeWithCallback.builder().name("parityfs_target_rebuild_size_bytes")
        .help("Cell bytes the rebuild of a slot writes in all").labelNames("target", "slot")
        .callback(cb -> eachRebuild(targets, (t, slot, p) -> cb.call(p.bytesTotal(), t, slot)))
        .register(r);
    GaugeWithCallback.builder().name("parityfs_target_rebuild_rate_bytes_per_second")
        .help("Average rate of the rebuild of a slot").labelNames("target", "slot")
        .callback(cb -> eachRebuild(targets,
            (t, slot, p) -> cb.call(p.bytesPerSecond(), t, slot)))
        .register(r);
  }

  private interface RebuildVisitor {
    void visit(String target, String slot, RebuildProgress p);
  }

  private static void eachRebuild(List<StorageTarget> targets, RebuildVisitor v) {
    for (StorageTarget t : targets) {
      for (Map.Entry<Integer, RebuildProgress> e : t.array().rebuilds().entrySet()) {
        v.visit(t.id(), e.getKey().toString(), e.getValue());
      }
    }
  }

  private static void scrub(PrometheusRegistry r, List<StorageTarget> targets) {
    GaugeWithCallback.builder().name("parityfs_target_scrub_running")
        .help("1 while a scrub pass runs").labelNames("target")
        .callback(cb -> targets.forEach(
            t -> cb.call(t.array().scrubber().running() ? 1 : 0, t.id()))).register(r);
    GaugeWithCallback.builder().name("parityfs_target_scrub_done_bytes")
        .help("Cell bytes covered by the scrub pass running").labelNames("target")
        .callback(cb -> targets.forEach(t -> {
          ScrubProgress p = t.array().scrubber().progress();
          cb.call(p.bytesDone(), t.id());
        })).register(r);
    GaugeWithCallback.builder().name("parityfs_target_scrub_size_bytes")
        .help("Cell bytes the scrub pass running covers in all").labelNames("target")
        .callback(cb -> targets.forEach(t -> {
          ScrubProgress p = t.array().scrubber().progress();
          cb.call(p.bytesTotal(), t.id());
        })).register(r);
    CounterWithCallback.builder().name("parityfs_target_scrub_passes")
        .help("Scheduled scrub passes run since the node started").labelNames("target")
        .callback(cb -> targets.forEach(t -> cb.call(
            t.scrubSchedule().map(s -> s.runs()).orElse(0L), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_scrub_repairs")
        .help("What scrubs rewrote since the node started: bad cells, wrong parity, re-created"
            + " shards").labelNames("target")
        .callback(cb -> targets.forEach(
            t -> cb.call(t.array().scrubber().repairsTotal(), t.id()))).register(r);
    CounterWithCallback.builder().name("parityfs_target_scrub_unrecoverable_objects")
        .help("Objects scrubs found unrecoverable since the node started, each scrub counting"
            + " the ones it found").labelNames("target")
        .callback(cb -> targets.forEach(
            t -> cb.call(t.array().scrubber().unrecoverableTotal(), t.id()))).register(r);
    GaugeWithCallback.builder().name("parityfs_target_scrub_lost_objects")
        .help("Objects the last scrubs found unrecoverable (reads of them fail) and no whole"
            + " scrub has cleared since: alert on > 0").labelNames("target")
        .callback(cb -> targets.forEach(t -> cb.call(t.lostObjects(), t.id()))).register(r);
  }

  private static void codec(PrometheusRegistry r, List<StorageTarget> targets) {
    Info info = Info.builder().name("parityfs_codec")
        .help("The parity codec each target uses")
        .labelNames("target", "geometry", "requested", "chosen", "implementation").register(r);
    for (StorageTarget t : targets) {
      t.codec().ifPresent(c -> info.addLabelValues(t.id(), c.geometry().toString(),
          c.requested().label(), c.chosen().label(), c.implementation()));
    }
    GaugeWithCallback.builder().name("parityfs_codec_calibration_bytes_per_second")
        .help("Data bytes per second each backend encoded in the codec's start-up calibration"
            + " (only backends that were measured)")
        .labelNames("target", "backend").callback(cb -> {
          for (StorageTarget t : targets) {
            if (t.codec().isEmpty()) {
              continue;
            }
            CodecSelection c = t.codec().get();
            if (c.cpuBytesPerSecond() > 0) {
              cb.call(c.cpuBytesPerSecond(), t.id(), "cpu");
            }
            if (c.gpuBytesPerSecond() > 0) {
              cb.call(c.gpuBytesPerSecond(), t.id(), "gpu");
            }
          }
        }).register(r);
  }
}
