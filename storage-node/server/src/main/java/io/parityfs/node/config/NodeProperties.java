package io.parityfs.node.config;

import io.parityfs.node.config.NodeConfigKeys.Key;
import io.parityfs.node.config.NodeConfigKeys.Scope;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Writes a storage node's properties file from {@link NodeConfigKeys}, typed: the local cluster
 * and the tests build their nodes' files with it instead of spelling keys and value formats by
 * hand. Every value is checked by its key's type as it is set, so a bad one fails here, naming
 * the key, rather than when the node starts. Keys left unset take their defaults when the file
 * is parsed. Not thread-safe.
 *
 * <pre>{@code
 * Properties p = NodeProperties.create()
 *     .set(NodeConfigKeys.LISTEN_PORT, 0)
 *     .set("t0", NodeConfigKeys.DRIVES, List.of("d0", "d1", "d2"))
 *     .setText("t0", NodeConfigKeys.GEOMETRY, "raid5:2+1")
 *     .toProperties();
 * }</pre>
 */
public final class NodeProperties {
  private final Properties props = new Properties();
  private final List<String> targets = new ArrayList<>();

  private NodeProperties() {}

  public static NodeProperties create() {
    return new NodeProperties();
  }

  /** Sets a node key. */
  public <T> NodeProperties set(Key<T> key, T value) {
    return put(key, null, key.type().format(value));
  }

  /** Sets a key of target {@code target}, adding the target to {@code targets} if new. */
  public <T> NodeProperties set(String target, Key<T> key, T value) {
    return put(key, target, key.type().format(value));
  }

  /** Sets a node key from its text (as a file would hold it), checked by the key's type. */
  public NodeProperties setText(Key<?> key, String text) {
    return putChecked(key, null, text);
  }

  /** Sets a key of {@code target} from its text, checked by the key's type. */
  public NodeProperties setText(String target, Key<?> key, String text) {
    return putChecked(key, target, text);
  }

  /** The properties (a copy): what {@link NodeConfigParser#parse(Properties, String, Path)} reads. */
  public Properties toProperties() {
    Properties copy = new Properties();
    copy.putAll(props);
    return copy;
  }

  /** Writes the file (UTF-8), with {@code comment} as its first line. */
  public void write(Path file, String comment) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      props.store(w, comment);
    }
  }

  private NodeProperties putChecked(Key<?> key, String target, String text) {
    try {
      key.type().parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key.property(target == null ? "<n>" : target) + ": "
          + e.getMessage(), e);
    }
    return put(key, target, text.trim());
  }

  private NodeProperties put(Key<?> key, String target, String text) {
    if ((key.scope() == Scope.TARGET) != (target != null)) {
      throw new IllegalArgumentException(key.name() + " is a " + key.scope()
          + " key" + (target == null ? ": name its target" : ": it takes no target"));
    }
    if (target != null) {
      if (!NodeConfigKeys.isValidTargetName(target)) {
        throw new IllegalArgumentException("target name (" + target
            + ") must be 1-64 letters, digits, '_' or '-'");
      }
      if (!targets.contains(target)) {
        targets.add(target);
        props.setProperty(NodeConfigKeys.TARGETS.name(), String.join(",", targets));
      }
    } else if (key == NodeConfigKeys.TARGETS) {
      throw new IllegalArgumentException("targets are added by setting their keys");
    }
    props.setProperty(key.property(target), text);
    return this;
  }
}
