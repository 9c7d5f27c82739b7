package io.parityfs.meta;

/**
 * Chooses the storage targets of a new file: given the layout a create resolved (the one asked
 * for, or the parent directory's default) with an empty target list, returns it with {@code
 * stripeCount} targets filled in. {@code io.parityfs.meta.targets.TargetPlacement} is the
 * implementation over the target registry; a {@link Namespace} uses one when opened with
 * {@link Namespace#withPlacement}.
 */
@FunctionalInterface
public interface LayoutPlacer {
  /**
   * @param path the file being created, for messages
   * @throws NamespaceException NO_SPACE or UNAVAILABLE when not enough targets are eligible
   */
  Layout place(Layout requested, String path) throws NamespaceException;

  /**
   * Checks a layout about to be set ({@link Namespace#setLayout}) against the targets that
   * exist, so that a directory default no file could ever be placed with is refused when it is
   * set, not at every later create. The default accepts every layout.
   *
   * @param path the directory or file, for messages
   * @throws NamespaceException NOT_FOUND naming a target or pool the cluster does not have
   * @throws IllegalArgumentException naming the value, e.g. a stripe count above the number of
   *     targets that could ever be drawn for it, or a target named twice
   */
  default void check(Layout layout, String path) throws NamespaceException {}

  /**
   * Checks a layout whose targets are all named (a directory default that pins them) before a
   * file is created with it; such a create draws nothing, so {@link #place} is not called. The
   * default accepts every layout.
   *
   * @param path the file being created, for messages
   * @throws NamespaceException UNAVAILABLE when a named target takes no new files
   */
  default void admitNamed(Layout layout, String path) throws NamespaceException {}
}
