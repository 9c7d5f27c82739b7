package io.parityfs.node.registry;

import io.parityfs.meta.registry.NodeRecord;
import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.TargetRecord;
import java.util.List;

/**
 * What the registration publishes, taken from the running node on each refresh.
 *
 * @param node the persistent node record
 * @param targets the persistent target records
 * @param online the ephemeral record
 */
public record NodeSnapshot(NodeRecord node, List<TargetRecord> targets, OnlineRecord online) {}
