package io.parityfs.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractBulkDeleteTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract: BulkDelete through Hadoop's default implementation (page size 1). */
public class TestPfsContractBulkDelete extends AbstractContractBulkDeleteTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new PfsContract(conf);
  }
}
