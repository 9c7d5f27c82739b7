package io.parityfs.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * A Hadoop {@code core-site.xml} read for the cluster a {@code pfs://} client of it reaches: the
 * CLI and the mount take their connection from it ({@code --core-site}) where no option or
 * environment variable names it, so they use the same credentials as Spark on that host. The
 * keys are the Hadoop client's ({@code io.parityfs.hadoop.PfsConfigKeys}, not used here: the CLI
 * runs without Hadoop on its class path): the cluster is {@code fs.defaultFS}'s {@code
 * pfs://NAME/}, else the only {@code fs.pfs.cluster.NAME.zookeeper}; its ZooKeeper, chroot and
 * digest file ({@code fs.pfs.cluster.NAME.*}, else {@code fs.pfs.zookeeper.*}), the nodes' TLS
 * files ({@code fs.pfs.tls.key|cert|ca|crl}) and ZooKeeper's ({@code
 * fs.pfs.zookeeper.tls.truststore|keystore}). Variable expansion ({@code ${...}}) and
 * {@code <xi:include>} are not supported.
 */
final class CoreSite {
  private static final String CLUSTER = "fs.pfs.cluster.";
  private final Map<String, String> properties;
  private final String cluster;
  private final Path file;

  private CoreSite(Path file, Map<String, String> properties, String cluster) {
    this.file = file;
    this.properties = properties;
    this.cluster = cluster;
  }

  /** Reads {@code file}; USAGE naming it when it is not a core-site or names no pfs cluster. */
  static CoreSite read(Path file) throws CliException {
    Map<String, String> p = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(file)) {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      DocumentBuilder b = f.newDocumentBuilder();
      NodeList props = b.parse(in).getDocumentElement().getElementsByTagName("property");
      for (int i = 0; i < props.getLength(); i++) {
        Element e = (Element) props.item(i);
        String name = text(e, "name");
        String value = text(e, "value");
        if (name != null && value != null) {
          p.put(name.trim(), value.trim());
        }
      }
    } catch (IOException e) {
      throw new CliException(ExitStatus.NOT_FOUND, file.toString(), "LOCAL_IO: cannot read the"
          + " core-site: " + e.getMessage());
    } catch (ParserConfigurationException | SAXException e) {
      throw new CliException(ExitStatus.USAGE, file.toString(), "INVALID_ARGUMENT: not a"
          + " Hadoop configuration file: " + e.getMessage());
    }
    return new CoreSite(file, p, cluster(file, p));
  }

  private static String text(Element e, String tag) {
    NodeList l = e.getElementsByTagName(tag);
    return l.getLength() == 0 ? null : l.item(0).getTextContent();
  }

  /** The pfs cluster the file is for (its authority, "NAME" or "host:port"). */
  private static String cluster(Path file, Map<String, String> p) throws CliException {
    String fs = p.get("fs.defaultFS");
    if (fs != null && fs.startsWith("pfs://")) {
      try {
        String authority = new URI(fs).getAuthority();
        if (authority != null) {
          return authority;
        }
      } catch (URISyntaxException e) {
        // fall back to the cluster keys
      }
    }
    List<String> named = new ArrayList<>();
    for (String k : p.keySet()) {
      if (k.startsWith(CLUSTER) && k.endsWith(".zookeeper")) {
        named.add(k.substring(CLUSTER.length(), k.length() - ".zookeeper".length()));
      }
    }
    if (named.size() != 1) {
      throw new CliException(ExitStatus.USAGE, file.toString(), "INVALID_ARGUMENT: "
          + (named.isEmpty() ? "no pfs cluster in it (fs.pfs.cluster.NAME.zookeeper, or"
          + " fs.defaultFS pfs://host:port/)" : "it names " + named.size() + " pfs clusters "
          + named + " and fs.defaultFS is none of them: keep one, or give --zookeeper"));
    }
    return named.get(0);
  }

  /** The cluster's ZooKeeper ensemble. */
  String zooKeeper() {
    String v = properties.get(CLUSTER + cluster + ".zookeeper");
    return v != null ? v : cluster.matches("[^:,/@]+:[0-9]{1,5}") ? cluster : null;
  }

  String chroot() {
    return either(CLUSTER + cluster + ".chroot", "fs.pfs.zookeeper.chroot");
  }

  Path digestFile() {
    return path(either(CLUSTER + cluster + ".digest.file", "fs.pfs.zookeeper.digest.file"));
  }

  /** {@code fs.pfs.tls.<what>} (key, cert, ca, crl) as a path, or null. */
  Path tls(String what) {
    return path(properties.get("fs.pfs.tls." + what));
  }

  /** {@code fs.pfs.zookeeper.tls.<what>} (truststore, keystore) as a path, or null. */
  Path zooKeeperTls(String what) {
    return path(properties.get("fs.pfs.zookeeper.tls." + what));
  }

  Path file() {
    return file;
  }

  private String either(String first, String second) {
    String v = properties.get(first);
    return v != null ? v : properties.get(second);
  }

  private static Path path(String v) {
    return v == null || v.isEmpty() ? null : Path.of(v);
  }
}
