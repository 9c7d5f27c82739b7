package io.parityfs.integration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractRenameTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@code AbstractContractRenameTest} (see fs-client's {@code TestPfsContractRename}) on
 * the child-process cluster of {@link ChildClusterContract}.
 */
public class ChildClusterContractRenameTest extends AbstractContractRenameTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ChildClusterContract(conf);
  }
}
