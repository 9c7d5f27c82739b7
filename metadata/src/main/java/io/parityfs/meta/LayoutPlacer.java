package io.parityfs.meta;

/**
 * Chooses the storage targets of a new file: given the layout a create resolved (the one asked
 * for, or the parent directory's default) with an empty target list, returns it with {@code
 * stripeCount} targets filled in. {@code io.parityfs.meta.targets.Placement} is the
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
}
