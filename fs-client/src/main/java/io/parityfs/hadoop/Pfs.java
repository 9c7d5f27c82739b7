package io.parityfs.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * {@code pfs://} for {@code FileContext}: a {@link PfsFileSystem} behind Hadoop's {@link
 * DelegateToFileSystem}. Hadoop finds it through {@code
 * fs.AbstractFileSystem.pfs.impl=io.parityfs.hadoop.Pfs} (there is no service loader for
 * these).
 */
public class Pfs extends DelegateToFileSystem {
  public Pfs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    // authorityNeeded false: Hadoop then wants no default port (a cluster name has none);
    // PfsFileSystem refuses a URI without an authority itself.
    super(uri, new PfsFileSystem(), conf, PfsFileSystem.SCHEME, false);
  }
}
