package io.parityfs.meta.registry;

/**
 * How far moving the members off a retired target has come, {@code
 * /parityfs/progress/<targetId>}, persistent: rewritten by whoever moves them (a {@code parityfs
 * reprotect} or {@code node drain} run, or the across-nodes keeper) every few seconds and at the
 * end of each pass, read by {@code parityfs reprotect --watch}. Not watched by registries.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param targetId the target whose members are moved
 * @param mover who is moving them (a client name)
 * @param kind {@code reprotect} (rebuilt from the other members) or {@code drain} (copied)
 * @param filesMoved files moved off the target in this pass so far
 * @param filesLeft files that still use the target and were left for a later pass (open,
 *     written meanwhile, or not movable), as counted so far
 * @param members members written so far
 * @param bytes bytes written so far
 * @param startedMillis when the pass started (the mover's clock)
 * @param updatedMillis when this record was written
 * @param done whether the pass ended; with {@code filesLeft} 0, no file uses the target
 */
public record MoveProgress(int schema, String targetId, String mover, String kind,
    long filesMoved, long filesLeft, long members, long bytes, long startedMillis,
    long updatedMillis, boolean done) {}
