package io.parityfs.hadoop;

import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.LocatedFileStatus;

/** {@link PfsFileStatus} with its chunks' locations, as {@code listLocatedStatus} returns. */
final class PfsLocatedFileStatus extends LocatedFileStatus implements EtagSource {
  private static final long serialVersionUID = 1L;
  private final String etag;

  PfsLocatedFileStatus(PfsFileStatus status, BlockLocation[] locations) {
    super(status, locations);
    this.etag = status.getEtag();
  }

  @Override
  public String getEtag() {
    return etag;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
