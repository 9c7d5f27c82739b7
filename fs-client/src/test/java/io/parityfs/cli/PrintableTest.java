package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class PrintableTest {
  @Test
  void controlAndBidiCharactersAreEscapedLikeLsB() {
    assertEquals("a\\nb", Printable.of("a\nb"));
    assertEquals("\\t\\r\\a\\b\\f\\v", Printable.of("\t\r\u0007\b\f\u000b"));
    assertEquals("\\033[31mred\\033[0m", Printable.of("\u001b[31mred\u001b[0m"));
    assertEquals("\\177\\302\\205", Printable.of("\u007f\u0085")); // DEL, C1 NEL
    assertEquals("\\001", Printable.of("\u0001"));
    assertEquals("gpj.\\342\\200\\256exe", Printable.of("gpj.\u202eexe")); // right-to-left override
    assertEquals("\\342\\200\\250", Printable.of("\u2028"));
    assertEquals("\\355\\240\\200x", Printable.of("\ud800x")); // unpaired surrogate
    assertEquals("back\\\\slash", Printable.of("back\\slash"), "a backslash, unambiguous");
  }

  @Test
  void printableNamesAreUnchanged() {
    for (String s : new String[] {"plain-name.txt", "with space", "名前", "😀emoji", "ü", "a%b",
        "*?<>|\"", "-rf", "\ue000private", "👨‍👩‍👧"}) {
      assertSame(s, Printable.of(s), s);
    }
  }
}
