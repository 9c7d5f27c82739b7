package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The encoder against the golden files byte for byte, and the golden bytes decoded back to the
 * same messages, whole and a byte at a time. {@code -Dgolden.update=true} rewrites the files
 * (only for a deliberate format change, which also needs a new protocol version).
 */
class GoldenFrameTest {
  private static final Path SOURCE = Path.of("src/test/resources/golden");

  @Test
  void encoderWritesTheGoldenBytes() throws IOException {
    if (Boolean.getBoolean("golden.update")) {
      writeGoldenFiles();
    }
    for (Map.Entry<String, List<Message>> file : GoldenFrames.all().entrySet()) {
      List<byte[]> golden = Hex.parseFrames(read(file.getKey()));
      List<Message> messages = file.getValue();
      assertEquals(messages.size(), golden.size(), file.getKey() + ": frame count");
      for (int i = 0; i < messages.size(); i++) {
        String what = file.getKey() + " frame " + i + " " + messages.get(i);
        assertEquals(HexFormat.of().formatHex(golden.get(i)),
            HexFormat.of().formatHex(Frames.encode(messages.get(i))), what);
      }
    }
  }

  @Test
  void goldenBytesDecodeToTheMessages() throws IOException {
    for (Map.Entry<String, List<Message>> file : GoldenFrames.all().entrySet()) {
      List<byte[]> golden = Hex.parseFrames(read(file.getKey()));
      List<Message> expected = file.getValue();
      for (int i = 0; i < golden.size(); i++) {
        Message want = expected.get(i);
        Role role = want.isResponse() ? Role.CLIENT : Role.NODE;
        for (int step : new int[] {golden.get(i).length, 1, 7}) {
          List<Object> got = Frames.decode(role, golden.get(i), step);
          try {
            assertEquals(List.of(want), got, file.getKey() + " frame " + i + " step " + step);
          } finally {
            Frames.releaseAll(got);
          }
        }
      }
      Frames.releaseAll(expected);
    }
  }

  @Test
  void pipelinedFramesInOneBufferDecodeInOrder() throws IOException {
    for (Map.Entry<String, List<Message>> file : GoldenFrames.all().entrySet()) {
      List<byte[]> golden = Hex.parseFrames(read(file.getKey()));
      List<Message> expected = file.getValue();
      var requests = new java.io.ByteArrayOutputStream();
      List<Message> wanted = new ArrayList<>();
      for (int i = 0; i < golden.size(); i++) {
        if (!expected.get(i).isResponse()) {
          requests.writeBytes(golden.get(i));
          wanted.add(expected.get(i));
        }
      }
      List<Object> got = Frames.decode(Role.NODE, requests.toByteArray());
      try {
        assertEquals(wanted, got, file.getKey());
      } finally {
        Frames.releaseAll(got);
        Frames.releaseAll(expected);
      }
    }
  }

  @Test
  void docsExampleIsTheGoldenStatRequest() throws IOException {
    // docs/protocol.md shows this frame; keep them in step.
    byte[] stat = Hex.parseFrames(read("metadata.hex")).get(0);
    assertTrue(HexFormat.of().withUpperCase().formatHex(stat).startsWith(
        "5046534E" + "01" + "13" + "0000" + "0000000000000007"));
  }

  private static String read(String name) throws IOException {
    try (InputStream in = GoldenFrameTest.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new IOException("no golden file " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void writeGoldenFiles() throws IOException {
    Files.createDirectories(SOURCE);
    for (Map.Entry<String, List<Message>> file : GoldenFrames.all().entrySet()) {
      StringBuilder sb = new StringBuilder();
      sb.append("# Golden frames, protocol version 1: ").append(file.getKey()).append('\n');
      sb.append("# magic ver op flags request-id status hlen plen pcrc hcrc | header | payload\n");
      for (Message m : file.getValue()) {
        sb.append("\n# ").append(m).append('\n');
        int headerLength = headerLength(m);
        sb.append(Hex.formatFrame(Frames.encode(m), headerLength)).append('\n');
      }
      Files.writeString(SOURCE.resolve(file.getKey()), sb.toString());
    }
  }

  private static int headerLength(Message m) {
    if (m instanceof DataFrame d) {
      d.retain();
    }
    byte[] f = Frames.encode(m);
    return ((f[20] & 0xFF) << 24) | ((f[21] & 0xFF) << 16) | ((f[22] & 0xFF) << 8) | (f[23] & 0xFF);
  }
}
