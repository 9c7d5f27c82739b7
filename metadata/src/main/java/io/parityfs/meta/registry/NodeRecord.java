package io.parityfs.meta.registry;

import java.util.List;

/**
 * The persistent record of a node, {@code /parityfs/nodes/<nodeId>}: written at every start and
 * whenever its fields change; kept when the node goes away.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param nodeId the node id (UUID)
 * @param name display name ({@code node.name})
 * @param host the address clients connect to
 * @param port the wire protocol port
 * @param metricsPort the metrics/health HTTP port, -1 when off
 * @param targets the ids of the targets the node serves
 * @param updatedMillis when written, ms since the epoch (the node's clock)
 * @param domain the node's failure domain ({@code node.domain}: a rack, a zone), "" for none;
 *     placement across nodes puts the members of a group in distinct domains where nodes carry
 *     one (absent in records of nodes before it: "")
 */
public record NodeRecord(int schema, String nodeId, String name, String host, int port,
    int metricsPort, List<String> targets, long updatedMillis, String domain) {
  public NodeRecord {
    targets = targets == null ? List.of() : List.copyOf(targets);
    domain = domain == null ? "" : domain;
  }

  /** A record without a failure domain. */
  public NodeRecord(int schema, String nodeId, String name, String host, int port,
      int metricsPort, List<String> targets, long updatedMillis) {
    this(schema, nodeId, name, host, port, metricsPort, targets, updatedMillis, "");
  }
}
