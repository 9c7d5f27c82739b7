package io.parityfs.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows printed in aligned columns, two spaces apart; a column whose alignment letter is
 * {@code r} is right-aligned (numbers). The last column is never padded. Cells are printed
 * {@link Printable} (a name's newline or escape sequence cannot break a row).
 */
final class Table {
  private final String align;
  private final int[] minWidths;
  private final List<String[]> rows = new ArrayList<>();

  /**
   * @param align one letter per column, {@code l} or {@code r}
   * @param minWidths the least width of the first columns (keeps the columns of tables printed
   *     one after the other, such as the pages of a long listing, mostly aligned)
   */
  Table(String align, int... minWidths) {
    this.align = align;
    this.minWidths = minWidths.clone();
  }

  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = cells[i] == null ? "-" : Printable.of(cells[i].toString());
    }
    rows.add(r);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintWriter out) {
    int[] width = new int[align.length()];
    System.arraycopy(minWidths, 0, width, 0, Math.min(minWidths.length, width.length));
    for (String[] r : rows) {
      for (int i = 0; i < r.length && i < width.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        if (i > 0) {
          b.append("  ");
        }
        boolean last = i == r.length - 1;
        int pad = i < width.length ? width[i] - r[i].length() : 0;
        boolean right = i < align.length() && align.charAt(i) == 'r';
        if (right) {
          b.append(" ".repeat(pad)).append(r[i]);
        } else {
          b.append(r[i]);
          if (!last) {
            b.append(" ".repeat(pad));
          }
        }
      }
      out.println(b);
    }
    out.flush();
  }
}
