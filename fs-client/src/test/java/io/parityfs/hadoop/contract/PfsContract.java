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
 * {@link SharedMiniCluster}; tests work under {@code /test}. Exported in this module's test-jar:
 * a subclass that overrides {@link #connect} runs the same suites against another cluster (the
 * integration module's child-process cluster does).
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
    fs = FileSystem.get(connect(getConf()), getConf());
  }

  /**
   * Names the cluster under test in {@code conf} (its {@code fs.pfs.cluster.<name>.zookeeper}
   * key, started if need be) and returns its {@code pfs://<name>/} URI.
   */
  protected URI connect(Configuration conf) throws IOException {
    SharedMiniCluster.apply(conf);
    return URI.create("pfs://" + SharedMiniCluster.CLUSTER + "/");
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
