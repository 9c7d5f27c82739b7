package io.parityfs.node.registry;

import java.util.List;

/**
 * The persistent record of a node, {@code /parityfs/nodes/<nodeId>}: written at every start and
 * whenever its fields change; kept when the node goes away.
 *
 * @param schema 1
 * @param nodeId the node id (UUID)
 * @param name display name ({@code node.name})
 * @param host the address clients connect to
 * @param port the wire protocol port
 * @param metricsPort the metrics/health HTTP port, -1 when off
 * @param targets the ids of the targets the node serves
 * @param updatedMillis when written, ms since the epoch
 */
public record NodeRecord(int schema, String nodeId, String name, String host, int port,
    int metricsPort, List<String> targets, long updatedMillis) {}
