package io.parityfs.raid.bench;

import java.util.Iterator;
import java.util.Map;

/**
 * Writes a result as JSON, two-space indented: maps become objects (in their iteration order),
 * {@link CharSequence}s strings, {@link Number}s numbers (a {@code double} is written with at most
 * 3 significant digits, see {@link #sig3}). Just enough for the benchmark files; no dependency.
 */
final class JsonWriter {
  private JsonWriter() {}

  static String write(Map<String, ?> object) {
    StringBuilder out = new StringBuilder();
    value(out, object, "");
    return out.append('\n').toString();
  }

  /** {@code x} rounded to 3 significant digits, in plain notation: 12.3, 0.331, 1230. */
  static String sig3(double x) {
    if (!Double.isFinite(x)) {
      throw new IllegalArgumentException("not a finite number: " + x);
    }
    return new java.math.BigDecimal(x)
        .round(new java.math.MathContext(3))
        .stripTrailingZeros()
        .toPlainString();
  }

  private static void value(StringBuilder out, Object v, String indent) {
    if (v instanceof Map<?, ?> map) {
      if (map.isEmpty()) {
        out.append("{}");
        return;
      }
      out.append("{\n");
      Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        out.append(indent).append("  ");
        string(out, String.valueOf(e.getKey()));
        out.append(": ");
        value(out, e.getValue(), indent + "  ");
        out.append(it.hasNext() ? ",\n" : "\n");
      }
      out.append(indent).append('}');
    } else if (v instanceof Double d) {
      out.append(sig3(d));
    } else if (v instanceof Number n) {
      out.append(n);
    } else if (v instanceof CharSequence s) {
      string(out, s.toString());
    } else {
      throw new IllegalArgumentException("cannot write " + v + " as JSON");
    }
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
