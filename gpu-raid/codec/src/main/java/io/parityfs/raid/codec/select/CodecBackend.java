package io.parityfs.raid.codec.select;

import java.util.Locale;

/** Which implementation computes parity: the configuration value {@code auto|cpu|gpu}. */
public enum CodecBackend {
  /**
   * The GPU when one is usable, passes the self-check, and encodes a calibration batch faster
   * than the CPU; otherwise the CPU. Never fails for want of a GPU.
   */
  AUTO,
  /** The CPU codec (Vector API kernels where present). */
  CPU,
  /** The GPU codec; start-up fails when no GPU is usable or the self-check fails. */
  GPU;

  /**
   * Parses "auto", "cpu" or "gpu" (any case).
   *
   * @throws IllegalArgumentException naming the value otherwise
   */
  public static CodecBackend parse(String text) {
    String t = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
    for (CodecBackend b : values()) {
      if (b.name().equals(t)) {
        return b;
      }
    }
    throw new IllegalArgumentException("codec backend (" + text + ") must be auto, cpu or gpu");
  }

  /** "auto", "cpu" or "gpu". */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
