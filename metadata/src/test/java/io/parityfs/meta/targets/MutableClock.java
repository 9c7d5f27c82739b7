package io.parityfs.meta.targets;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test moves it. */
public final class MutableClock extends Clock {
  private final AtomicLong millis;

  public MutableClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  public void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }
}
