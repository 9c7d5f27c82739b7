package io.parityfs.hadoop;

import java.util.Locale;
import org.apache.hadoop.fs.Options.OpenFileOptions;

/**
 * {@code openFile()}'s read policies ({@code fs.option.openfile.read.policy}) as the read-ahead
 * of the stream it opens: a random, vector or columnar policy turns the read-ahead off, a
 * sequential or whole-file one keeps it.
 */
final class ReadPolicies {
  private ReadPolicies() {}

  /**
   * The read-ahead for {@code policies}: the first policy of the list this file system knows
   * decides; {@code readAhead} (the configured one) when none is known.
   */
  static long readAhead(String[] policies, long readAhead) {
    for (String policy : policies) {
      switch (policy.toLowerCase(Locale.ROOT)) {
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_RANDOM:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_VECTOR:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_COLUMNAR:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_PARQUET:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_ORC:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_HBASE:
          return 0;
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_SEQUENTIAL:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_WHOLE_FILE:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_ADAPTIVE:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_DEFAULT:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_CSV:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_JSON:
        case OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_AVRO:
          return readAhead;
        default:
          // unknown policies are skipped, as filesystem.md asks
      }
    }
    return readAhead;
  }
}
