package io.parityfs.client;

import java.io.IOException;

/**
 * A chunk write or delete refused by its target because a newer writer generation of the file
 * exists (STALE_GENERATION): this writer's lease was recovered, or another writer reopened the
 * file. The writer is dead, as with the namespace's LEASE_EXPIRED: its stream fails from then
 * on, and nothing after its last hflush/hsync is the file's.
 */
public final class FencedException extends IOException {
  private static final long serialVersionUID = 1L;

  FencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
