package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.codec.CodecGeometry;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The names of an object version's files on a drive: the one place that knows them. All numbers
 * are fixed-width lowercase hexadecimal, so that a sorted listing ({@link Drive#list}) orders one
 * object's files by version, and the last manifest listed is the highest version:
 *
 * <pre>
 *   manifest   &lt;object id: 16 hex&gt;.&lt;version: 16 hex&gt;.manifest
 *   shard      &lt;object id: 16 hex&gt;.&lt;version: 16 hex&gt;.&lt;shard: 2 hex&gt;
 *   temp file  either name + ".tmp" (being written; never read, deleted by recovery)
 *   tombstone  &lt;object id: 16 hex&gt;.&lt;version: 16 hex&gt;.deleted   (a delete in progress: every
 *              file of the object at this version or below is being deleted; never a temp)
 *
 *   object 0x0123456789abcdef version 42:
 *     0123456789abcdef.000000000000002a.manifest
 *     0123456789abcdef.000000000000002a.05          shard 5
 *     0123456789abcdef.000000000000002a.05.tmp      shard 5 being written
 * </pre>
 *
 * The object id is printed unsigned; the version is >= 0; the shard is 0..63 (k + m, or the copy,
 * at most {@link io.parityfs.raid.codec.CodecGeometry#MAX_SHARDS}). Only these exact forms parse:
 * no upper case, no other widths, so every file has one name.
 */
public final class ObjectFiles {
  /** Suffix of a file being written, as {@link ShardWriter#TEMP_SUFFIX}. */
  static final String TEMP_SUFFIX = ShardWriter.TEMP_SUFFIX;

  static final String MANIFEST_SUFFIX = "manifest";

  static final String TOMBSTONE_SUFFIX = "deleted";

  private static final int ID_DIGITS = 16;
  private static final int SHARD_DIGITS = 2;
  private static final int MAX_SHARDS = CodecGeometry.MAX_SHARDS;

  private ObjectFiles() {}

  /**
   * A parsed object file name.
   *
   * @param objectId the object
   * @param version the object version, >= 0
   * @param shard the shard index, {@link #MANIFEST} for the manifest, {@link #TOMBSTONE} for a
   *     tombstone
   * @param temp whether the name ends with {@value ObjectFiles#TEMP_SUFFIX}
   */
  public record Name(long objectId, long version, int shard, boolean temp) {
    /** The {@link #shard} of a manifest. */
    static final int MANIFEST = -1;
    /** The {@link #shard} of a tombstone. */
    static final int TOMBSTONE = -2;

    public boolean isManifest() {
      return shard == MANIFEST;
    }

    boolean isTombstone() {
      return shard == TOMBSTONE;
    }

    /** Whether this names a published shard file (not a manifest, tombstone or temp). */
    boolean isShard() {
      return shard >= 0 && !temp;
    }

    /** The file name this was parsed from. */
    @Override
    public String toString() {
      String name = isManifest() ? ObjectFiles.manifest(objectId, version)
          : isTombstone() ? ObjectFiles.tombstone(objectId, version)
          : ObjectFiles.shard(objectId, version, shard);
      return temp ? ObjectFiles.temp(name) : name;
    }
  }

  /** The prefix every file of {@code objectId} starts with, for {@link Drive#list}. */
  public static String prefix(long objectId) {
    return hex(objectId, ID_DIGITS) + ".";
  }

  /** The manifest of {@code objectId} at {@code version}. */
  public static String manifest(long objectId, long version) {
    return versionPrefix(objectId, version) + MANIFEST_SUFFIX;
  }

  /**
   * The tombstone of {@code objectId} at {@code version}: left by a delete while it removes the
   * object's files; while a live drive holds it, no version at or below it is read, rebuilt or
   * reconstructed from shard headers, and garbage collection finishes the delete.
   */
  public static String tombstone(long objectId, long version) {
    return versionPrefix(objectId, version) + TOMBSTONE_SUFFIX;
  }

  /** Shard {@code shard} of {@code objectId} at {@code version}. */
  public static String shard(long objectId, long version, int shard) {
    if (shard < 0 || shard >= MAX_SHARDS) {
      throw new IllegalArgumentException(
          "shard (" + shard + ") must be in 0.." + (MAX_SHARDS - 1));
    }
    return versionPrefix(objectId, version) + hex(shard, SHARD_DIGITS);
  }

  /** The temp name under which {@code name} is written. */
  public static String temp(String name) {
    return name + TEMP_SUFFIX;
  }

  /**
   * Parses an object file name.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it, when it is not
   *     an object file (a label, a probe file, anything foreign)
   */
  public static Name parse(String fileName) {
    String s = fileName;
    boolean temp = s.endsWith(TEMP_SUFFIX);
    if (temp) {
      s = s.substring(0, s.length() - TEMP_SUFFIX.length());
    }
    String[] parts = s.split("\\.", -1);
    if (parts.length != 3) {
      throw foreign(fileName, "not <object>.<version>.<shard or manifest>[" + TEMP_SUFFIX + "]");
    }
    long objectId = number(fileName, "object id", parts[0], ID_DIGITS);
    long version = number(fileName, "version", parts[1], ID_DIGITS);
    if (version < 0) {
      throw foreign(fileName, "the version is above " + Long.MAX_VALUE);
    }
    if (parts[2].equals(MANIFEST_SUFFIX)) {
      return new Name(objectId, version, Name.MANIFEST, temp);
    }
    if (parts[2].equals(TOMBSTONE_SUFFIX)) {
      if (temp) {
        throw foreign(fileName, "a tombstone is never a temp file");
      }
      return new Name(objectId, version, Name.TOMBSTONE, false);
    }
    long shard = number(fileName, "shard", parts[2], SHARD_DIGITS);
    if (shard >= MAX_SHARDS) {
      throw foreign(fileName, "shard " + shard + " is not in 0.." + (MAX_SHARDS - 1));
    }
    return new Name(objectId, version, (int) shard, temp);
  }

  /** {@link #parse}, or empty for a name that is not an object file. */
  public static Optional<Name> tryParse(String fileName) {
    try {
      return Optional.of(parse(fileName));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The highest version of {@code objectId} with a manifest among {@code names} (a drive's
   * listing; temp files and other names are ignored), or empty when there is none.
   */
  static OptionalLong latestManifest(Collection<String> names, long objectId) {
    long best = -1;
    for (String n : names) {
      Optional<Name> name = tryParse(n);
      if (name.isPresent() && name.get().objectId() == objectId && name.get().isManifest()
          && !name.get().temp()) {
        best = Math.max(best, name.get().version());
      }
    }
    return best < 0 ? OptionalLong.empty() : OptionalLong.of(best);
  }

  private static String versionPrefix(long objectId, long version) {
    if (version < 0) {
      throw new IllegalArgumentException("object version (" + version + ") must be >= 0");
    }
    return prefix(objectId) + hex(version, ID_DIGITS) + ".";
  }

  private static String hex(long value, int digits) {
    String h = Long.toHexString(value);
    return "0".repeat(digits - h.length()) + h;
  }

  private static long number(String fileName, String field, String text, int digits) {
    if (text.length() != digits) {
      throw foreign(fileName, "the " + field + " '" + text + "' is not " + digits + " hex digits");
    }
    for (int i = 0; i < digits; i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        throw foreign(fileName,
            "the " + field + " '" + text + "' is not " + digits + " lowercase hex digits");
      }
    }
    return Long.parseUnsignedLong(text, 16);
  }

  private static IllegalArgumentException foreign(String fileName, String why) {
    return new IllegalArgumentException("'" + fileName + "' is not an object file name: " + why);
  }
}
