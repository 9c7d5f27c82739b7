package io.parityfs.meta;

/** How {@link Namespace#setXAttr} treats an existing or missing attribute (HDFS's XAttrSetFlag). */
public enum XAttrMode {
  /** Fail with ALREADY_EXISTS if the attribute exists. */
  CREATE,
  /** Fail with NOT_FOUND if the attribute does not exist. */
  REPLACE,
  /** Create or replace. */
  UPSERT
}
