package io.parityfs.integration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractRootDirectoryTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@code AbstractContractRootDirectoryTest} (see fs-client's {@code TestPfsContractRootDirectory}) on
 * the child-process cluster of {@link ChildClusterContract}.
 */
public class ChildClusterContractRootDirectoryTest extends AbstractContractRootDirectoryTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ChildClusterContract(conf);
  }
}
