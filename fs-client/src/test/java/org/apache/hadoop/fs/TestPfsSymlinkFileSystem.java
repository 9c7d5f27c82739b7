package org.apache.hadoop.fs;

import io.parityfs.hadoop.PfsFileSystem;
import io.parityfs.testing.SharedMiniCluster;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Hadoop's own symbolic link suite ({@code SymlinkBaseTest}, from hadoop-common's tests, the
 * one HDFS and the local file system run: 60 cases) against pfs:// through the FileSystem API.
 * In this package because the suite's wrapper is package-private there. Two cases are run here
 * in their own form: they check HDFS's exact wording of a failure ("File does not exist: ...",
 * "No FileSystem for scheme: null"); the failure itself is checked the same.
 */
public class TestPfsSymlinkFileSystem extends SymlinkBaseTest {
  private static FileSystem fs;

  /** A default resource naming the test cluster, for the suite's own contexts (below). */
  private static final String SITE = "pfs-symlink-suite-site.xml";

  @BeforeClass
  public static void open() throws IOException {
    FileSystem.enableSymlinks();
    // The suite reads links through FileContext.getLocalFSFileContext() too, whose
    // configuration is a new one: it must know pfs://mini, as a core-site.xml would tell it.
    Configuration site = SharedMiniCluster.apply(new Configuration(false));
    java.nio.file.Path dir;
    try {
      dir = java.nio.file.Path.of(TestPfsSymlinkFileSystem.class.getResource("/").toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IOException(e);
    }
    try (java.io.OutputStream out = java.nio.file.Files.newOutputStream(dir.resolve(SITE))) {
      site.writeXml(out);
    }
    Configuration.addDefaultResource(SITE);
    Configuration conf = new Configuration(SharedMiniCluster.configuration());
    conf.setBoolean(PfsFileSystem.SYMLINKS_KEY, true);
    // the file system under test is the default one, as HDFS is in the suite's own runs (a
    // path with the scheme and no authority, pfs:///a, then means this cluster)
    conf.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, "pfs://mini/");
    fs = FileSystem.newInstance(URI.create("pfs://mini/"), conf);
    wrapper = new FileSystemTestWrapper(fs);
  }

  @AfterClass
  public static void close() throws IOException {
    if (fs != null) {
      fs.delete(new Path("/symlink-suite"), true);
      fs.close();
    }
  }

  @Override
  protected String getScheme() {
    return "pfs";
  }

  @Override
  protected String testBaseDir1() {
    return "/symlink-suite/test1";
  }

  @Override
  protected String testBaseDir2() {
    return "/symlink-suite/test2";
  }

  @Override
  protected URI testURI() {
    return fs.getUri();
  }

  /** The suite's case, but for HDFS's wording of the FileNotFoundException. */
  @Override
  @Test(timeout = 10000)
  public void testCreateLinkUsingPartQualPath1() throws IOException {
    Path fileWoHost = new Path(getScheme() + "://" + testBaseDir1() + "/file");
    Path link = new Path(testBaseDir1() + "/linkToFile");
    Path linkQual = new Path(new Path(testURI().toString()), testBaseDir1() + "/linkToFile");
    wrapper.createSymlink(fileWoHost, link, false);
    // the partially qualified target is stored and given back as it was, no authority added
    assertEquals(fileWoHost, wrapper.getLinkTarget(linkQual));
    assertEquals(fileWoHost.toString(),
        wrapper.getFileLinkStatus(link).getSymlink().toString());
    assertEquals(fileWoHost.toString(),
        wrapper.getFileLinkStatus(linkQual).getSymlink().toString());
    // pfs:///a is this file system's /a, which does not exist
    FileNotFoundException e = assertThrows(FileNotFoundException.class, () -> readFile(link));
    assertTrue(e.getMessage(), e.getMessage().contains(testBaseDir1() + "/file"));
  }

  /** The suite's case, but for the wording of the failure to follow a scheme-less target. */
  @Override
  @Test(timeout = 10000)
  public void testCreateLinkUsingPartQualPath2() throws IOException {
    Path link = new Path(testBaseDir1(), "linkToFile");
    Path fileWoScheme = new Path("//" + testURI().getAuthority() + testBaseDir1() + "/file");
    wrapper.createSymlink(fileWoScheme, link, false);
    assertEquals(fileWoScheme, wrapper.getLinkTarget(link));
    assertEquals(fileWoScheme.toString(),
        wrapper.getFileLinkStatus(link).getSymlink().toString());
    IOException e = assertThrows(IOException.class, () -> readFile(link));
    assertTrue(e.getMessage(), e.getMessage().contains("not in this file system"));
  }
}
