package io.parityfs.meta;

import io.parityfs.meta.registry.PoolNames;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a file's bytes are laid out over storage targets: chunk {@code i} of a file lives on
 * {@code targets.get(i % stripeCount)} as chunk {@code (fileId, i)}, protected inside that
 * target's node by its {@code protection} scheme, and across nodes by its {@code across} policy
 * (mirror copies or parity chunks on other targets, docs/across-nodes.md).
 *
 * <p>On a directory this is the default layout that new files and subdirectories inherit (its
 * target list is then usually empty: targets are chosen per file, from its {@code pool}, by
 * {@link io.parityfs.meta.targets.TargetPlacement}).
 *
 * @param chunkSize bytes per chunk: a multiple of 4096 in [4 KiB, 1 GiB]
 * @param stripeCount targets a file is striped over, in [1, 1024]
 * @param targets target ids (at most {@code stripeCount}; empty until placement chose them)
 * @param protection the node-level scheme: {@code raid5:K+1}, {@code raid6:K+2}, {@code rs:K+M},
 *     {@code mirror:N} or {@code none}
 * @param across the protection across nodes ({@link Across#NONE}: none); the stripe count is at
 *     least its {@link Across#width() width}, and placement puts every {@code width}
 *     consecutive targets on distinct nodes
 * @param pool the pool of storage targets placement chooses from (a storage node's {@code
 *     target.<name>.pool}): 1..64 letters, digits, {@code _ . -}; {@link #DEFAULT_POOL} unless
 *     set
 */
public record Layout(long chunkSize, int stripeCount, List<String> targets, String protection,
    Across across, String pool) {
  private static final Pattern PROTECTION =
      Pattern.compile("none|raid5:[1-9][0-9]?\\+1|raid6:[1-9][0-9]?\\+2|rs:[1-9][0-9]?\\+[1-9][0-9]?"
          + "|mirror:[1-9]");
  private static final int MAX_TARGET_ID = 128;

  /**
   * The pool of every target that names none, and of every layout that names none ({@link
   * PoolNames#DEFAULT}: the pool names are the target records' schema).
   */
  public static final String DEFAULT_POOL = PoolNames.DEFAULT;

  /** 8 MiB chunks over 4 targets, RAID-6 4+2 inside each node, nothing across nodes. */
  public static final Layout DEFAULT = new Layout(8L << 20, 4, List.of(), "raid6:4+2");

  public Layout {
    Objects.requireNonNull(targets, "targets");
    Objects.requireNonNull(protection, "protection");
    Objects.requireNonNull(across, "across");
    Objects.requireNonNull(pool, "pool");
    if (!isValidPool(pool)) {
      throw new IllegalArgumentException("pool (" + pool + ") must be 1-64 letters, digits, '_',"
          + " '.' or '-'");
    }
    if (chunkSize < 4096 || chunkSize > (1L << 30) || chunkSize % 4096 != 0) {
      throw new IllegalArgumentException(
          "chunkSize (" + chunkSize + ") must be a multiple of 4096 in [4096, 2^30]");
    }
    if (stripeCount < 1 || stripeCount > 1024) {
      throw new IllegalArgumentException("stripeCount (" + stripeCount + ") must be in [1, 1024]");
    }
    if (targets.size() > stripeCount) {
      throw new IllegalArgumentException("targets (" + targets.size()
          + ") must be at most stripeCount (" + stripeCount + ")");
    }
    for (String t : targets) {
      if (t == null || t.isEmpty() || t.length() > MAX_TARGET_ID) {
        throw new IllegalArgumentException("target id (" + t + ") must be 1.."
            + MAX_TARGET_ID + " characters");
      }
    }
    if (!PROTECTION.matcher(protection).matches()) {
      throw new IllegalArgumentException("protection (" + protection
          + ") must be none, raid5:K+1, raid6:K+2, rs:K+M or mirror:N");
    }
    if (stripeCount < across.width()) {
      throw new IllegalArgumentException("stripe count (" + stripeCount + ") must be at least "
          + across.width() + " for " + across + " across nodes (one target per "
          + (across.kind() == Across.Kind.MIRROR ? "copy" : "member of a chunk group") + ")");
    }
    targets = List.copyOf(targets);
  }

  /** A layout in the {@link #DEFAULT_POOL}, with nothing across nodes. */
  public Layout(long chunkSize, int stripeCount, List<String> targets, String protection) {
    this(chunkSize, stripeCount, targets, protection, Across.NONE, DEFAULT_POOL);
  }

  /** This layout with another target list (what placement fills in at create). */
  public Layout withTargets(List<String> newTargets) {
    return new Layout(chunkSize, stripeCount, newTargets, protection, across, pool);
  }

  /** This layout striped over {@code count} targets (placement, when fewer are eligible). */
  public Layout withStripeCount(int count) {
    return new Layout(chunkSize, count, targets, protection, across, pool);
  }

  /** This layout drawing its targets from another pool. */
  public Layout withPool(String newPool) {
    return new Layout(chunkSize, stripeCount, targets, protection, across, newPool);
  }

  /**
   * This layout with another policy across nodes; a stripe count below its width is raised to
   * it (a directory's narrow default still gives a file the targets its policy needs).
   */
  public Layout withAcross(Across newAcross) {
    return new Layout(chunkSize, Math.max(stripeCount, newAcross.width()), targets, protection,
        newAcross, pool);
  }

  /**
   * Bytes on the drives per byte stored by a target of node-level protection {@code
   * protection} ({@code raid6:4+2}: 1.5; {@code mirror:3}: 3; {@code none}: 1).
   *
   * @throws IllegalArgumentException for a scheme this class does not accept
   */
  public static double insideMediaFactor(String protection) {
    if (protection == null || !PROTECTION.matcher(protection).matches()) {
      throw new IllegalArgumentException("protection (" + protection + ") must be none, raid5:K+1,"
          + " raid6:K+2, rs:K+M or mirror:N");
    }
    if (protection.equals("none")) {
      return 1;
    }
    String shape = protection.substring(protection.indexOf(':') + 1);
    if (protection.startsWith("mirror:")) {
      return Integer.parseInt(shape);
    }
    int plus = shape.indexOf('+');
    int k = Integer.parseInt(shape.substring(0, plus));
    return (k + Integer.parseInt(shape.substring(plus + 1))) / (double) k;
  }

  /**
   * Whether {@code pool} is a valid pool name: 1..64 of {@code A-Z a-z 0-9 _ . -} ({@link
   * PoolNames#isValid}).
   */
  public static boolean isValidPool(String pool) {
    return PoolNames.isValid(pool);
  }
}
