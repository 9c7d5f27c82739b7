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
 */
public record NamespaceConfig(String root, Layout rootLayout, int bucketsPerDirectory,
    int idBlock, int maxRetries, int maxPageSize) {

  public static final NamespaceConfig DEFAULT =
      new NamespaceConfig("/parityfs/ns", Layout.DEFAULT, 64, 256, 200, 1000);

  public NamespaceConfig {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(rootLayout, "rootLayout");
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

    private Builder(NamespaceConfig c) {
      root = c.root;
      rootLayout = c.rootLayout;
      bucketsPerDirectory = c.bucketsPerDirectory;
      idBlock = c.idBlock;
      maxRetries = c.maxRetries;
      maxPageSize = c.maxPageSize;
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

    public NamespaceConfig build() {
      return new NamespaceConfig(root, rootLayout, bucketsPerDirectory, idBlock, maxRetries,
          maxPageSize);
    }
  }
}
