package io.parityfs.node.protocol.admin;

import java.util.List;
import java.util.Objects;

/**
 * A target's array as ARRAY_STATUS shows it; also the answer to FAIL_DRIVE and REPLACE_DRIVE
 * (the array's state after the change).
 *
 * @param id the target id (the array id, a UUID)
 * @param name the target's name in the node's configuration
 * @param state the target's state: OPTIMAL, DEGRADED, REBUILDING or FAILED
 * @param protection e.g. {@code raid6:4+2}
 * @param cellSize bytes per cell
 * @param maxChunkSize the largest chunk, bytes
 * @param capacityBytes chunk bytes the target can hold (estimate)
 * @param freeBytes chunk bytes it can take now (estimate)
 * @param codec the parity codec the node chose, e.g. {@code cpu-vector}, or {@code none}
 * @param drives every slot, in slot order (a slot's index in the list is its number)
 * @param tasks its rebuilds, then its scrub when one has run since the node started
 */
public record TargetStatus(String id, String name, String state, String protection,
    int cellSize, long maxChunkSize, long capacityBytes, long freeBytes, String codec,
    List<DriveSlot> drives, List<ArrayTask> tasks) {
  public TargetStatus {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(protection, "protection");
    Objects.requireNonNull(codec, "codec");
    drives = List.copyOf(Objects.requireNonNull(drives, "drives"));
    tasks = List.copyOf(Objects.requireNonNull(tasks, "tasks"));
  }
}
