package io.parityfs.meta;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link Layout} is written in the namespace's records (inodes, deferred deletes):
 * {@code {"chunkSize","stripeCount","targets","protection","across","pool"}}, the policy across
 * nodes as its text ({@code "ec:4+1"}). Records from before a field existed still read: without
 * {@code pool}, the {@link Layout#DEFAULT_POOL}; without {@code across}, {@link Across#NONE}. The
 * former {@code mirrorCount} (reserved, never acted on: such a file's chunks are stored once) is
 * ignored.
 */
final class LayoutJson {
  private LayoutJson() {}

  /** The Jackson module that reads and writes layouts so. */
  static SimpleModule module() {
    return new SimpleModule()
        .addSerializer(Across.class, ToStringSerializer.instance)
        .addDeserializer(Layout.class, new LayoutReader());
  }

  private static final class LayoutReader extends StdDeserializer<Layout> {
    private static final long serialVersionUID = 1L;

    LayoutReader() {
      super(Layout.class);
    }

    @Override
    public Layout deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
      JsonNode n = p.readValueAsTree();
      List<String> targets = new ArrayList<>();
      for (JsonNode t : n.path("targets")) {
        targets.add(t.asText());
      }
      JsonNode protection = n.get("protection");
      JsonNode across = n.get("across");
      JsonNode pool = n.get("pool");
      return new Layout(n.path("chunkSize").asLong(), n.path("stripeCount").asInt(), targets,
          protection == null || protection.isNull() ? null : protection.asText(),
          across == null || across.isNull() ? Across.NONE : Across.parse(across.asText()),
          pool == null || pool.isNull() ? Layout.DEFAULT_POOL : pool.asText());
    }
  }
}
