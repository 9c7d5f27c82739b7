package io.parityfs.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's contract: readVectored (Hadoop's default implementation over the positioned reads),
 * once with heap and once with direct buffers (the suite is parameterized).
 */
public class TestPfsContractVectoredRead extends AbstractContractVectoredReadTest {
  public TestPfsContractVectoredRead(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new PfsContract(conf);
  }
}
