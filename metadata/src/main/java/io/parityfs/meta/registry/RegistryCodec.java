package io.parityfs.meta.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * The JSON of the registry records ({@link NodeRecord}, {@link TargetRecord}, {@link
 * OnlineRecord}, {@link OfflineRecord}, {@link RetiredRecord}, {@link MoveProgress}): UTF-8, fields in the records' component order, {@code
 * "schema":1} first. Example of a target record:
 *
 * <pre>
 * {"schema":1,"targetId":"8d0e...","nodeId":"3f1c...","name":"t0","pool":"default",
 *  "protection":"raid6:4+2","cellSize":65536,"maxChunkSize":67108864,"dataSlots":6,
 *  "hotSpares":0,"createdMillis":1736000000000,"state":"OPTIMAL",
 *  "capacityBytes":15360000000000,"updatedMillis":1736217600000}
 * </pre>
 *
 * <p>Decoding checks {@code schema} before anything else: a record without one, or of a schema
 * other than {@link #SCHEMA}, is refused with a {@link CorruptRecordException} naming the znode
 * and both schemas (a newer ParityFS wrote it: upgrade this side first); the metadata layer
 * reports it as {@code NamespaceStatus.CORRUPT}. Unknown fields are ignored, so a field added
 * within schema 1 stays readable. Stateless and thread-safe.
 */
public final class RegistryCodec {
  /** The schema of every record this code writes and the only one it reads. */
  public static final int SCHEMA = 1;

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final Set<Class<?>> RECORDS =
      Set.of(NodeRecord.class, TargetRecord.class, OnlineRecord.class, OfflineRecord.class,
          RetiredRecord.class, MoveProgress.class);

  private RegistryCodec() {}

  /**
   * The bytes of {@code record}, one of the registry records.
   *
   * @throws IllegalArgumentException for any other object
   */
  public static byte[] encode(Object record) {
    check(record.getClass());
    try {
      return JSON.writeValueAsBytes(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // records of plain values always serialise
    }
  }

  /** {@link #encode} as a string (for logs, tools and tests). */
  public static String toJson(Object record) {
    check(record.getClass());
    try {
      return JSON.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads the record of type {@code type} stored at znode {@code path}.
   *
   * @param path the znode the bytes came from, for the error
   * @throws CorruptRecordException when the bytes are not JSON of that record, carry no schema,
   *     or carry a schema other than {@link #SCHEMA}
   */
  public static <T> T decode(byte[] data, Class<T> type, String path)
      throws CorruptRecordException {
    check(type);
    JsonNode tree;
    try {
      tree = JSON.readTree(data);
    } catch (IOException e) {
      throw new CorruptRecordException(path,
          "undecodable " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
    JsonNode schema = tree == null ? null : tree.get("schema");
    if (schema == null || !schema.canConvertToInt()) {
      throw new CorruptRecordException(path,
          type.getSimpleName() + " without a schema number (this code reads schema " + SCHEMA
              + ")");
    }
    if (schema.intValue() != SCHEMA) {
      throw new CorruptRecordException(path,
          type.getSimpleName() + " of schema " + schema.intValue() + "; this code reads schema "
              + SCHEMA + " only (written by a " + (schema.intValue() > SCHEMA ? "newer" : "other")
              + " ParityFS version: upgrade the readers first)");
    }
    try {
      return JSON.treeToValue(tree, type);
    } catch (IOException | RuntimeException e) {
      throw new CorruptRecordException(path,
          "undecodable " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  private static void check(Class<?> type) {
    if (!RECORDS.contains(type)) {
      throw new IllegalArgumentException("not a registry record: " + type.getName());
    }
  }
}
