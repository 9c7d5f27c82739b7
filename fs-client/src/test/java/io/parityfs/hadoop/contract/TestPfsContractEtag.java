package io.parityfs.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractEtagTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract: etags (the inode's id-version) from stat and listings, across renames. */
public class TestPfsContractEtag extends AbstractContractEtagTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new PfsContract(conf);
  }
}
