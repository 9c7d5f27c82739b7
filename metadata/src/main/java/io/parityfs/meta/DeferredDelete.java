package io.parityfs.meta;

import java.util.Objects;

/**
 * A removed file whose chunks are still to be deleted: one record of the {@link DeleteQueue}.
 * The inode's id, layout, length and version as they were when it left the namespace.
 *
 * @param id the file id (its chunks are {@code (id, i)} on {@code layout.targets()})
 * @param layout where its chunks are: chunk {@code i} on {@code targets[i % stripeCount]}
 * @param length the committed length; a writer still active may have written chunks beyond it
 * @param version the inode's version when removed
 * @param queuedMillis when the removal committed (the remover's clock)
 */
public record DeferredDelete(long id, Layout layout, long length, long version,
    long queuedMillis) {
  public DeferredDelete {
    Objects.requireNonNull(layout, "layout");
  }
}
