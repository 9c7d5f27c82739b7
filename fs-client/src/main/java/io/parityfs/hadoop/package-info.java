/**
 * The Hadoop {@code FileSystem} for {@code pfs://} URIs: {@link io.parityfs.hadoop.PfsFileSystem}
 * (registered through {@code META-INF/services}), {@link io.parityfs.hadoop.Pfs} for {@code
 * FileContext}, and {@link io.parityfs.hadoop.PfsConfigKeys}, every configuration key they read.
 * Everything else here is package-private glue between Hadoop's types and {@link
 * io.parityfs.client.ParityClient}: the stream adapters, the status conversion and the mapping of
 * {@link io.parityfs.meta.NamespaceStatus} to Hadoop's exceptions. See {@code docs/hadoop.md}.
 */
package io.parityfs.hadoop;
