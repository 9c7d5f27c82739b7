package io.parityfs.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractLeaseRecoveryTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract: LeaseRecoverable: recoverLease and isFileClosed. */
public class TestPfsContractLeaseRecovery extends AbstractContractLeaseRecoveryTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new PfsContract(conf);
  }
}
