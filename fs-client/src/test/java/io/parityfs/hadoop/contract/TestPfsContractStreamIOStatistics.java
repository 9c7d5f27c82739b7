package io.parityfs.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractStreamIOStatisticsTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract: the streams' IOStatistics (bytes read and written). */
public class TestPfsContractStreamIOStatistics extends AbstractContractStreamIOStatisticsTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new PfsContract(conf);
  }
}
