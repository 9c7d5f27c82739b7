package io.parityfs.integration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractLeaseRecoveryTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@code AbstractContractLeaseRecoveryTest} (see fs-client's {@code TestPfsContractLeaseRecovery}) on
 * the child-process cluster of {@link ChildClusterContract}.
 */
public class ChildClusterContractLeaseRecoveryTest extends AbstractContractLeaseRecoveryTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ChildClusterContract(conf);
  }
}
