package io.parityfs.meta;

import java.util.Objects;

/**
 * Immutable settings of a {@link Namespace}. {@link #DEFAULT}, {@link #builder()},
 * {@link #toBuilder()}; every check fails at build time naming the bad value.
 *
 * @param root znode under which the namespace lives (beside the storage nodes' {@code
 *     /parityfs/nodes}, {@code /targets}, {@code /online}); default {@code /parityfs/ns}
 * @param rootLayout the root directory's default layout, written when the namespace is formatted
 * @param bucketsPerDirectory directory-entry buckets of a new directory, a power of two in
 *     [1, 256]; fixed per directory at mkdir (stored in its record)
 * @param idBlock inode ids taken from the shared counter at a time (fewer counter writes; ids
 *     of a closed namespace's unused block are skipped, never reused)
 * @param maxRetries optimistic retries (version conflicts, races) before CONFLICT
 * @param maxPageSize the largest listing page served
 * @param permissions whether mode bits and owners are checked (HDFS {@code
 *     dfs.permissions.enabled}); when false they are still stored
 * @param superuser the user every check lets through (HDFS: the NameNode's user); default
 *     {@code root}
 * @param superGroup members of this group are superusers too; default {@code supergroup}
 * @param suspendedWaitMillis how long an operation waits for a suspended ZooKeeper connection
 *     to come back before failing with UNAVAILABLE
 * @param entryCacheSize entry records this client caches, each with a ZooKeeper watch (see
 *     {@code EntryCache}; roughly 0.5 KiB each); 0 turns the cache off (and with it the
 *     lister's watched name cache); default 100,000
 * @param ifMissing what {@link Namespace#open} does when there is no namespace at {@code root}:
 *     default {@link IfMissing#FAIL}, which clients keep, so that a mistyped chroot or root, or
 *     a ZooKeeper that lost its data, is an error instead of a fresh empty file system
 */
public record NamespaceConfig(String root, Layout rootLayout, int bucketsPerDirectory,
    int idBlock, int maxRetries, int maxPageSize, boolean permissions, String superuser,
    String superGroup, long suspendedWaitMillis, int entryCacheSize, IfMissing ifMissing) {

  /** What {@link Namespace#open} does when {@code root} holds no namespace. */
  public enum IfMissing {
    /** NOT_FOUND, naming the ZooKeeper ensemble, chroot and root, and {@code parityfs format}. */
    FAIL,
    /**
     * Formats it when no registered storage target holds chunks or fences (a new cluster);
     * NOT_FOUND otherwise (ZooKeeper lost its data, or the chroot is wrong): what a storage
     * node's cluster manager and {@code parityfs local} use.
     */
    FORMAT_IF_NO_DATA,
    /** Formats it (an explicit {@code parityfs format}, test clusters). */
    FORMAT
  }

  public static final NamespaceConfig DEFAULT = new NamespaceConfig("/parityfs/ns",
      Layout.DEFAULT, 64, 256, 200, 1000, true, "root", "supergroup", 20_000, 100_000,
      IfMissing.FAIL);

  public NamespaceConfig {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(rootLayout, "rootLayout");
    Objects.requireNonNull(ifMissing, "ifMissing");
    if (!root.startsWith("/") || root.endsWith("/") || root.contains("//")) {
      throw new IllegalArgumentException(
          "root (" + root + ") must be an absolute znode path without a trailing slash");
    }
    if (bucketsPerDirectory < 1 || bucketsPerDirectory > 256
        || Integer.bitCount(bucketsPerDirectory) != 1) {
      throw new IllegalArgumentException("bucketsPerDirectory (" + bucketsPerDirectory
          + ") must be a power of two in [1, 256]");
    }
    if (idBlock < 1 || idBlock > 1 << 20) {
      throw new IllegalArgumentException("idBlock (" + idBlock + ") must be in [1, 2^20]");
    }
    if (maxRetries < 1) {
      throw new IllegalArgumentException("maxRetries (" + maxRetries + ") must be at least 1");
    }
    if (maxPageSize < 1 || maxPageSize > 10_000) {
      throw new IllegalArgumentException("maxPageSize (" + maxPageSize
          + ") must be in [1, 10000]");
    }
    Objects.requireNonNull(superuser, "superuser");
    Objects.requireNonNull(superGroup, "superGroup");
    if (superuser.isEmpty() || superGroup.isEmpty()) {
      throw new IllegalArgumentException("superuser (" + superuser + ") and superGroup ("
          + superGroup + ") must not be empty");
    }
    if (entryCacheSize < 0) {
      throw new IllegalArgumentException("entryCacheSize (" + entryCacheSize
          + ") must be >= 0 (0: no cache)");
    }
    if (suspendedWaitMillis < 0) {
      throw new IllegalArgumentException("suspendedWaitMillis (" + suspendedWaitMillis
          + ") must be >= 0");
    }
  }

  public static Builder builder() {
    return new Builder(DEFAULT);
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builder of {@link NamespaceConfig}; starts from {@link #DEFAULT}. */
  public static final class Builder {
    private String root;
    private Layout rootLayout;
    private int bucketsPerDirectory;
    private int idBlock;
    private int maxRetries;
    private int maxPageSize;
    private boolean permissions;
    private String superuser;
    private String superGroup;
    private long suspendedWaitMillis;
    private int entryCacheSize;
    private IfMissing ifMissing;

    private Builder(NamespaceConfig c) {
      root = c.root;
      rootLayout = c.rootLayout;
      bucketsPerDirectory = c.bucketsPerDirectory;
      idBlock = c.idBlock;
      maxRetries = c.maxRetries;
      maxPageSize = c.maxPageSize;
      permissions = c.permissions;
      superuser = c.superuser;
      superGroup = c.superGroup;
      suspendedWaitMillis = c.suspendedWaitMillis;
      entryCacheSize = c.entryCacheSize;
      ifMissing = c.ifMissing;
    }

    public Builder root(String v) {
      root = v;
      return this;
    }

    public Builder rootLayout(Layout v) {
      rootLayout = v;
      return this;
    }

    public Builder bucketsPerDirectory(int v) {
      bucketsPerDirectory = v;
      return this;
    }

    public Builder idBlock(int v) {
      idBlock = v;
      return this;
    }

    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    public Builder maxPageSize(int v) {
      maxPageSize = v;
      return this;
    }

    public Builder permissions(boolean v) {
      permissions = v;
      return this;
    }

    public Builder superuser(String v) {
      superuser = v;
      return this;
    }

    public Builder superGroup(String v) {
      superGroup = v;
      return this;
    }

    public Builder suspendedWaitMillis(long v) {
      suspendedWaitMillis = v;
      return this;
    }

    public Builder entryCacheSize(int v) {
      entryCacheSize = v;
      return this;
    }

    public Builder ifMissing(IfMissing v) {
      ifMissing = v;
      return this;
    }

    public NamespaceConfig build() {
      return new NamespaceConfig(root, rootLayout, bucketsPerDirectory, idBlock, maxRetries,
          maxPageSize, permissions, superuser, superGroup, suspendedWaitMillis, entryCacheSize,
          ifMissing);
    }
  }
}
