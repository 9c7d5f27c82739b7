package io.parityfs.fuse;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How {@link PfsMount} mounts: where, and the libfuse options. The mount always passes
 * {@code default_permissions} (the kernel checks mode bits) and its binding's options ({@link
 * FuseBinding#libfuseOptions}: with libfuse 2, {@code use_ino}, inode numbers are the
 * namespace's, {@code hard_remove}, no {@code .fuse_hidden} files, and the request size;
 * libfuse 3 takes those in its init); by default {@code attr_timeout=0} (stats
 * ask the namespace, whose cache is watched: what another mount committed shows at once) and
 * {@code entry_timeout=1}.
 *
 * @param mountPoint an existing empty directory
 * @param allowOther let users other than the mounting one in ({@code allow_other}; a
 *     non-root mounter needs {@code user_allow_other} in {@code /etc/fuse.conf})
 * @param debug libfuse's request trace on standard error ({@code -d})
 * @param extra more {@code -o} options, appended last (so they override the defaults)
 * @param timeout how long {@link PfsMount#start} waits for the mount to appear
 */
public record MountOptions(Path mountPoint, boolean allowOther, boolean debug,
    List<String> extra, Duration timeout) {
  public MountOptions {
    Objects.requireNonNull(mountPoint, "mountPoint");
    Objects.requireNonNull(timeout, "timeout");
    extra = List.copyOf(extra);
    for (String o : extra) {
      if (o.isEmpty() || o.contains(" ")) {
        throw new IllegalArgumentException("mount option (" + o + ") must be non-empty, no"
            + " spaces");
      }
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout (" + timeout + ") must be positive");
    }
  }

  /** Defaults at {@code mountPoint}: only the mounting user, no trace, 30 s to mount. */
  public static MountOptions of(Path mountPoint) {
    return new MountOptions(mountPoint, false, false, List.of(), Duration.ofSeconds(30));
  }

  public MountOptions withAllowOther(boolean v) {
    return new MountOptions(mountPoint, v, debug, extra, timeout);
  }

  public MountOptions withDebug(boolean v) {
    return new MountOptions(mountPoint, allowOther, v, extra, timeout);
  }

  public MountOptions withExtra(List<String> v) {
    return new MountOptions(mountPoint, allowOther, debug, v, timeout);
  }

  /** The libfuse arguments, {@code -o a,b,c}: the mount's, then the binding's own. */
  List<String> fuseArguments(List<String> bindingOptions) {
    List<String> o = new ArrayList<>(List.of("default_permissions", "attr_timeout=0",
        "entry_timeout=1", "subtype=parityfs"));
    o.addAll(bindingOptions);
    if (allowOther) {
      o.add("allow_other");
    }
    o.addAll(extra);
    return List.of("-o", String.join(",", o));
  }
}
