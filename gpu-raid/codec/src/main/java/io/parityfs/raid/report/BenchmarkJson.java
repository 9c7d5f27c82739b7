package io.parityfs.raid.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a benchmark or check result as JSON in the layout of {@code docs/benchmarks/*.json}
 * (two-space indent, keys in map order): maps are objects, lists arrays, {@link CharSequence}s
 * strings, {@link Boolean}s and {@code null} as such, {@code double}s with at most 3 significant
 * digits, other numbers as they are. Just enough for the result files; no dependency.
 */
public final class BenchmarkJson {
  private BenchmarkJson() {}

  public static String write(Map<String, ?> object) {
    StringBuilder out = new StringBuilder();
    value(out, object, "");
    return out.append('\n').toString();
  }

  /** {@code x} rounded to 3 significant digits, in plain notation: 12.3, 0.331, 1230. */
  public static String sig3(double x) {
    if (!Double.isFinite(x)) {
      throw new IllegalArgumentException("not a finite number: " + x);
    }
    return new BigDecimal(x).round(new MathContext(3)).stripTrailingZeros().toPlainString();
  }

  private static void value(StringBuilder out, Object v, String indent) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof Map<?, ?> map) {
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
    } else if (v instanceof List<?> list) {
      if (list.isEmpty()) {
        out.append("[]");
        return;
      }
      out.append("[\n");
      for (int i = 0; i < list.size(); i++) {
        out.append(indent).append("  ");
        value(out, list.get(i), indent + "  ");
        out.append(i + 1 < list.size() ? ",\n" : "\n");
      }
      out.append(indent).append(']');
    } else if (v instanceof Double || v instanceof Float) {
      out.append(sig3(((Number) v).doubleValue()));
    } else if (v instanceof Number || v instanceof Boolean) {
      out.append(v);
    } else if (v instanceof CharSequence s) {
      string(out, s.toString());
    } else {
      throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
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
        case '\r' -> out.append("\\r");
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
