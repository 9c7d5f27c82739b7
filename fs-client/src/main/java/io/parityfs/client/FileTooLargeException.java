package io.parityfs.client;

/**
 * A length no file can take: past the largest chunk index of its layout, or an extension (a
 * truncate up, a write past the end) whose zeros the file's targets could not hold. ParityFS
 * files have no holes, so extending one stores its zeros; this is refused before a byte is
 * stored rather than filling the targets' drives ({@link ClientStatus#FILE_TOO_LARGE}). The
 * mount returns {@code EFBIG}.
 */
public final class FileTooLargeException extends ClientException {
  private static final long serialVersionUID = 1L;

  public FileTooLargeException(String path, String message) {
    super(ClientStatus.FILE_TOO_LARGE, path, message);
  }
}
