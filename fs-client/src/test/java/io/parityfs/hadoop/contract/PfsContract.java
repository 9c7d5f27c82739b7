package io.parityfs.hadoop.contract;

import io.parityfs.testing.SharedMiniCluster;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * The contract of {@code pfs://}: the flags of {@code contract/pfs.xml}, against the JVM's
 * {@link SharedMiniCluster}; tests work under {@code /test}.
 */
public class PfsContract extends AbstractFSContract {
  public static final String CONTRACT_XML = "contract/pfs.xml";
  private FileSystem fs;

  public PfsContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
  }

  @Override
  public void init() throws IOException {
    super.init();
    SharedMiniCluster.apply(getConf());
    fs = FileSystem.get(URI.create("pfs://" + SharedMiniCluster.CLUSTER + "/"), getConf());
  }

  @Override
  public FileSystem getTestFileSystem() {
    return fs;
  }

  @Override
  public String getScheme() {
    return "pfs";
  }

  @Override
  public Path getTestPath() {
    return new Path("/test");
  }
}
