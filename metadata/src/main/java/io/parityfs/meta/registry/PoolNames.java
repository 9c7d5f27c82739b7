package io.parityfs.meta.registry;

import java.util.regex.Pattern;

/**
 * The names of storage-target pools: what a storage node declares for each target ({@code
 * target.<name>.pool}), what its {@link TargetRecord} carries, and what a file's layout ({@code
 * io.parityfs.meta.Layout#pool}) draws its targets from. Here, with the record schema, so that
 * the schema depends on nothing of the namespace.
 */
public final class PoolNames {
  /** The pool of every target that names none, and of every layout that names none. */
  public static final String DEFAULT = "default";

  private static final Pattern POOL = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private PoolNames() {}

  /** Whether {@code pool} is a valid pool name: 1..64 of {@code A-Z a-z 0-9 _ . -}. */
  public static boolean isValid(String pool) {
    return pool != null && POOL.matcher(pool).matches();
  }
}
