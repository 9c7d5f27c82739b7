package io.parityfs.node.tls;

import io.parityfs.node.protocol.Opcode;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the holder of a cluster certificate may do (docs/security.md, "Credentials"). A
 * certificate names its role in one Subject Alternative Name URI, {@code parityfs:role:<role>};
 * one with none, or with two, has no role and is refused.
 */
public enum TlsRole {
  /** Reads and writes chunks; the read-only admin opcodes (NODE_INFO, ARRAY_STATUS, PROGRESS). */
  CLIENT,
  /**
   * A storage node, or what acts for the cluster (the cluster manager, the keeper): also the
   * peer operations (REBUILD_MEMBER).
   */
  NODE,
  /** Everything, the drive operations (FAIL_DRIVE, REPLACE_DRIVE, rebuild, scrub) included. */
  ADMIN;

  /** The scheme and prefix of the role's SAN URI. */
  public static final String URI_PREFIX = "parityfs:role:";
  private static final int SAN_URI = 6;

  /** The role's SAN URI, e.g. {@code parityfs:role:client}. */
  public String uri() {
    return URI_PREFIX + label();
  }

  /** {@code client}, {@code node} or {@code admin}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role of a label ({@code client}, ...), case-insensitive. */
  public static TlsRole parse(String label) {
    for (TlsRole r : values()) {
      if (r.label().equalsIgnoreCase(label.trim())) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown role '" + label + "' (client, node or admin)");
  }

  /** The least role a request of {@code op} needs. */
  public static TlsRole needed(Opcode op) {
    return switch (op) {
      case FAIL_DRIVE, REPLACE_DRIVE, START_REBUILD, STOP_REBUILD, START_SCRUB, STOP_SCRUB -> ADMIN;
      case REBUILD_MEMBER -> NODE; // the node reads its peers with its own certificate
      default -> CLIENT;
    };
  }

  /** Whether this role may do what {@code needed} may. */
  public boolean covers(TlsRole needed) {
    return this == ADMIN || this == needed || needed == CLIENT;
  }

  /** The role {@code cert} names, or empty when it names none, several, or an unknown one. */
  public static Optional<TlsRole> of(X509Certificate cert) {
    Collection<List<?>> names;
    try {
      names = cert.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return Optional.empty();
    }
    if (names == null) {
      return Optional.empty();
    }
    List<TlsRole> found = new ArrayList<>();
    for (List<?> n : names) {
      if (n.size() >= 2 && Integer.valueOf(SAN_URI).equals(n.get(0))
          && n.get(1) instanceof String uri && uri.startsWith(URI_PREFIX)) {
        try {
          found.add(parse(uri.substring(URI_PREFIX.length())));
        } catch (IllegalArgumentException e) {
          return Optional.empty();
        }
      }
    }
    return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
  }
}
