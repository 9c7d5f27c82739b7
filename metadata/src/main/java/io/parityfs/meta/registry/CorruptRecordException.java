package io.parityfs.meta.registry;

import java.io.IOException;

/**
 * A registry record that {@link RegistryCodec#decode} refuses: not JSON of that record, without
 * a schema, or of a schema other than {@link RegistryCodec#SCHEMA}. Readers in the metadata
 * layer report it as {@code NamespaceStatus.CORRUPT} of {@link #path()} with {@link #reason()}.
 */
public final class CorruptRecordException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String reason;

  public CorruptRecordException(String path, String reason, Throwable cause) {
    super(path + ": " + reason, cause);
    this.path = path;
    this.reason = reason;
  }

  public CorruptRecordException(String path, String reason) {
    this(path, reason, null);
  }

  /** The znode the record was read from. */
  public String path() {
    return path;
  }

  /** Why it was refused, naming the record type (and both schemas where they differ). */
  public String reason() {
    return reason;
  }
}
