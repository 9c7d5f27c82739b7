package io.parityfs.node.protocol.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * The JSON of the admin replies, one document per reply ({@link NodeInfo}, {@link ArrayStatus},
 * {@link TargetStatus}, {@link Progress}, {@link TaskReply}): UTF-8, {@code "schema":1} first,
 * then the record's fields in component order; the records inside a document ({@link
 * TargetSummary}, {@link DriveSlot}, {@link ArrayTask}) carry no schema of their own. Example, a
 * PROGRESS reply:
 *
 * <pre>
 * {"schema":1,"nodeId":"3f1c...","tasks":[{"target":"8d0e...","kind":"rebuild","slot":2,
 *  "state":"RUNNING","bytesDone":1048576,"bytesTotal":6291456,"bytesPerSecond":5.2E7,
 *  "etaSeconds":0.1,"objectsDone":4,"objectsTotal":23,"objectsLost":0,"elapsedSeconds":0.02}]}
 * </pre>
 *
 * <p>Decoding checks {@code schema} before anything else: a document without one, or of a schema
 * other than {@link #SCHEMA}, is refused naming both schemas (a newer node wrote it: upgrade the
 * reader). Every field of a record must be there (an {@code etaSeconds} may be {@code null}),
 * except the fields added within schema 1, which an older node does not write: they are marked
 * {@code @JacksonInject(ABSENT)} and read as null when absent ({@link ArrayTask#result}).
 * Unknown fields are ignored, so a field added within schema 1 stays readable by older code. Anything else that
 * is not the document asked for is refused as undecodable. Stateless and thread-safe.
 */
public final class AdminCodec {
  /** The schema of every document this code writes and the only one it reads. */
  public static final int SCHEMA = 1;
  /**
   * The injection id of a field added within schema 1: absent from a document (written by an
   * older node), it reads as null instead of refusing the document.
   */
  public static final String ABSENT = "parityfs.absent";

  /** The injection id of a count added within schema 1: 0 when absent (an older node). */
  public static final String ZERO = "parityfs.zero";

  /** As {@link #ZERO}, for a count of seconds. */
  public static final String ZERO_SECONDS = "parityfs.zero-seconds";

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
      .configure(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES, true)
      .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true)
      .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true)
      .setInjectableValues(new InjectableValues.Std().addValue(ABSENT, null)
          .addValue(ZERO, 0L).addValue(ZERO_SECONDS, 0.0));
  private static final Set<Class<?>> DOCUMENTS = Set.of(NodeInfo.class, ArrayStatus.class,
      TargetStatus.class, Progress.class, TaskReply.class);

  private AdminCodec() {}

  /**
   * The JSON of {@code document}, one of the five reply documents.
   *
   * @throws IllegalArgumentException for any other object
   */
  public static String encode(Object document) {
    check(document.getClass());
    ObjectNode tree = JSON.createObjectNode();
    tree.put("schema", SCHEMA);
    tree.setAll((ObjectNode) JSON.valueToTree(document));
    try {
      return JSON.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // records of plain values always serialise
    }
  }

  /**
   * Reads a reply document of type {@code type}.
   *
   * @throws AdminPayloadException when {@code json} is not a JSON object of that document,
   *     carries no schema, or carries a schema other than {@link #SCHEMA}
   */
  public static <T> T decode(String json, Class<T> type) throws AdminPayloadException {
    check(type);
    String what = type.getSimpleName();
    JsonNode tree;
    try {
      tree = json == null ? null : JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new AdminPayloadException("undecodable " + what + " (not JSON): "
          + e.getOriginalMessage(), e);
    }
    if (tree == null || !tree.isObject()) {
      throw new AdminPayloadException("undecodable " + what + ": not a JSON object");
    }
    JsonNode schema = tree.get("schema");
    if (schema == null || !schema.isIntegralNumber() || !schema.canConvertToInt()) {
      throw new AdminPayloadException(what + " without a schema number (this code reads schema "
          + SCHEMA + ")");
    }
    if (schema.intValue() != SCHEMA) {
      throw new AdminPayloadException(what + " of schema " + schema.intValue()
          + "; this code reads schema " + SCHEMA + " only (written by a "
          + (schema.intValue() > SCHEMA ? "newer" : "other")
          + " ParityFS version: upgrade the readers first)");
    }
    ((ObjectNode) tree).remove("schema");
    try {
      return JSON.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      throw new AdminPayloadException("undecodable " + what + ": " + e.getOriginalMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw new AdminPayloadException("undecodable " + what + ": " + e.getMessage(), e);
    }
  }

  private static void check(Class<?> type) {
    if (!DOCUMENTS.contains(type)) {
      throw new IllegalArgumentException("not an admin reply document: " + type.getName());
    }
  }
}
