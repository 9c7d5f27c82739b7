package io.parityfs.meta.registry;

/**
 * The persistent record of a target, {@code /parityfs/targets/<targetId>}: written at every
 * start and whenever its state changes; kept when the node goes away, so the metadata layer
 * knows a target's last state, owner and pool while it is offline.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param targetId the target id, the array id (UUID)
 * @param nodeId the node serving it
 * @param name the target's name in the node's configuration
 * @param pool the pool placement draws it from ({@code target.<name>.pool}); records written
 *     before pools existed have none and read as {@link PoolNames#DEFAULT}
 * @param protection e.g. {@code raid6:4+2}, {@code rs:10+4}, {@code mirror:3}
 * @param cellSize bytes per cell
 * @param maxChunkSize the largest chunk, bytes
 * @param dataSlots drives holding data
 * @param hotSpares spares at creation
 * @param createdMillis when the array was created
 * @param state the array state last seen: OPTIMAL, DEGRADED, REBUILDING or FAILED
 * @param capacityBytes chunk bytes the target can hold (estimate)
 * @param updatedMillis when written (the node's clock)
 * @param maxFileId the highest file id whose chunks or writer fences the target holds, 0 for
 *     none; records of nodes that predate it read as 0. The namespace never hands out an id at
 *     or below it (its id counter is raised past it), so a namespace rolled back by a ZooKeeper
 *     restore cannot give a new file the id of chunks still stored
 */
public record TargetRecord(int schema, String targetId, String nodeId, String name, String pool,
    String protection, int cellSize, long maxChunkSize, int dataSlots, int hotSpares,
    long createdMillis, String state, long capacityBytes, long updatedMillis, long maxFileId) {
  public TargetRecord {
    if (maxFileId < 0) {
      throw new IllegalArgumentException("maxFileId (" + maxFileId + ") must be >= 0");
    }
    if (pool == null) {
      pool = PoolNames.DEFAULT;
    } else if (!PoolNames.isValid(pool)) {
      throw new IllegalArgumentException("pool (" + pool + ") must be 1-64 letters, digits,"
          + " '_', '.' or '-'");
    }
  }
}
