package io.parityfs.meta.targets;

import java.util.Locale;

/**
 * Whether a target stays in service, decided by an admin or the cluster manager and kept in a
 * retirement mark ({@code /parityfs/retired/<targetId>}, {@link
 * io.parityfs.meta.registry.RetiredRecord}) that outlives the node's sessions
 * (docs/across-nodes.md §5). Placement draws new files and replacements only from targets {@link
 * #IN_SERVICE}.
 */
public enum Standing {
  /** No mark: placement may use it. */
  IN_SERVICE,
  /**
   * Being drained ({@code parityfs node drain}): its members are copied to other targets, each
   * file's layout switched after the copy, so protection never drops; nothing new is placed on
   * it. Its node keeps serving what is still there.
   */
  DRAINING,
  /**
   * Declared lost ({@code parityfs node remove}, or OFFLINE longer than the cluster manager's
   * {@code deadAfter}): its members are rebuilt elsewhere from the other members of their
   * groups, never read from it again once moved. A node that returns with it holds only
   * orphans.
   */
  BAD;

  /** The standing a mark's {@code standing} field names; unknown names read as BAD. */
  public static Standing of(String name) {
    if (name == null) {
      return BAD;
    }
    return switch (name.toUpperCase(Locale.ROOT)) {
      case "IN_SERVICE" -> IN_SERVICE;
      case "DRAINING" -> DRAINING;
      default -> BAD;
    };
  }

  /** How the CLI prints it: {@code in-service}, {@code draining}, {@code bad}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
