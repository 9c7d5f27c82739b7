package io.parityfs.integration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@code AbstractContractSeekTest} (see fs-client's {@code TestPfsContractSeek}) on
 * the child-process cluster of {@link ChildClusterContract}.
 */
public class ChildClusterContractSeekTest extends AbstractContractSeekTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ChildClusterContract(conf);
  }
}
