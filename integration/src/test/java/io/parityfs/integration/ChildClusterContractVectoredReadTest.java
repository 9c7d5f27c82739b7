package io.parityfs.integration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@code AbstractContractVectoredReadTest} (see fs-client's {@code TestPfsContractVectoredRead}) on
 * the child-process cluster of {@link ChildClusterContract}.
 */
public class ChildClusterContractVectoredReadTest extends AbstractContractVectoredReadTest {
  public ChildClusterContractVectoredReadTest(String bufferType) {
    super(bufferType); // parameterized: heap and direct buffers
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ChildClusterContract(conf);
  }
}
