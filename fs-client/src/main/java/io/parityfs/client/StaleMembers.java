package io.parityfs.client;

import io.parityfs.meta.Across;
import io.parityfs.meta.Repairs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The members one writer could not store because their targets were down, while their groups
 * still got enough members to be read (docs/across-nodes.md §3): its share of the file's repair
 * record, handed to the namespace with every commit ({@code Namespace#setLength(String, long,
 * long, long, long, Repairs)}), so no length is committed without the record of what it left
 * out. A group must get at least {@link #least()} members stored: K plus the margin for ec:K+M,
 * one copy plus the margin for mirror:N, the margin capped so that a write never needs every
 * member ({@code ClientConfig#writeMargin}). Thread-safe.
 */
final class StaleMembers {
  private final int least;
  private Repairs repairs = Repairs.NONE;

  StaleMembers(Across across, int margin) {
    this(switch (across.kind()) {
      case EC -> across.data() + Math.min(margin, across.parity() - 1);
      case MIRROR -> 1 + Math.min(margin, across.data() - 2);
      case NONE -> 1;
    });
  }

  private StaleMembers(int least) {
    this.least = least;
  }

  /** A record for writes that must store all {@code members} of a group (it stays empty). */
  static StaleMembers every(int members) {
    return new StaleMembers(members);
  }

  /** The fewest members of a group a write must store. */
  int least() {
    return least;
  }

  /** Notes that group {@code group}'s member on {@code target} was not stored. */
  synchronized void add(String target, long group) {
    repairs = repairs.with(Repairs.of(target, group));
  }

  /** Every member this writer left out so far. */
  synchronized Repairs repairs() {
    return repairs;
  }

  /**
   * Waits for the member writes of one group, {@code writes.get(i)} storing the member on
   * {@code targets.get(i)} (null: left out from the start, its target known down). {@code
   * implicit} members count as stored without a write: the data chunks past the end of a
   * partial ec round, zeros to the code. Completes normally when every write succeeded or
   * failed only by {@link #targetDown}, with at least {@link #least()} stored, the implicit ones
   * included; the members left out are then added to this record. Otherwise
   * completes exceptionally with the first failure (the others suppressed), and nothing is
   * added: the write fails.
   */
  CompletableFuture<Void> settle(long group, List<String> targets,
      List<CompletableFuture<Void>> writes, int implicit, String what) {
    CompletableFuture<?>[] started = writes.stream().filter(f -> f != null)
        .toArray(CompletableFuture[]::new);
    return CompletableFuture.allOf(started).handle((v, ignored) -> {
      List<String> missing = new ArrayList<>();
      IOException fatal = null;
      IOException down = null;
      for (int i = 0; i < writes.size(); i++) {
        CompletableFuture<Void> f = writes.get(i);
        if (f == null) {
          missing.add(targets.get(i));
          continue;
        }
        IOException e = failure(f, what);
        if (e == null) {
          continue;
        }
        if (targetDown(e)) {
          missing.add(targets.get(i));
          down = chain(down, e);
        } else {
          fatal = chain(fatal, e);
        }
      }
      int stored = writes.size() - missing.size();
      if (fatal == null && stored + implicit < least) {
        int needed = least - implicit;
        fatal = needed == writes.size() && down != null ? down : new ClientException(
            ClientStatus.UNAVAILABLE, null, what + ": only " + stored + " of its "
            + writes.size() + " members could be stored, fewer than the " + needed
            + " a write needs (targets not reached: " + String.join(", ", missing) + ")", down);
      }
      if (fatal != null) {
        if (down != null && fatal != down && fatal.getCause() != down) {
          fatal.addSuppressed(down);
        }
        throw new CompletionException(fatal);
      }
      for (String t : missing) {
        add(t, group);
      }
      return null;
    });
  }

  private static IOException failure(CompletableFuture<Void> f, String what) {
    try {
      f.join();
      return null;
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      Throwable c = e.getCause() != null ? e.getCause() : e;
      // not a transfer's failure (a bug, a codec's): never taken for a target that is down
      return c instanceof IOException io ? io : new IOException(what + ": " + c, c);
    }
  }

  private static IOException chain(IOException first, IOException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /**
   * Whether a member write that failed so may be left out (its target is down or cannot take
   * it now), rather than fail the write: not a fenced writer, a full target, or a bad request.
   */
  static boolean targetDown(IOException e) {
    return MemberIo.targetDown(e);
  }
}
