/**
 * The payloads of the admin replies ({@link io.parityfs.node.protocol.AdminResponse}), typed:
 * {@link io.parityfs.node.protocol.admin.NodeInfo} (NODE_INFO), {@link
 * io.parityfs.node.protocol.admin.ArrayStatus} of {@link
 * io.parityfs.node.protocol.admin.TargetStatus}es with their {@link
 * io.parityfs.node.protocol.admin.DriveSlot}s (ARRAY_STATUS; one TargetStatus answers FAIL_DRIVE
 * and REPLACE_DRIVE), {@link io.parityfs.node.protocol.admin.Progress} of {@link
 * io.parityfs.node.protocol.admin.ArrayTask}s (PROGRESS; a finished scrub's task
 * carries its {@link io.parityfs.node.protocol.admin.ScrubResult}) and {@link
 * io.parityfs.node.protocol.admin.TaskReply} (START/STOP_REBUILD, START/STOP_SCRUB). {@link
 * io.parityfs.node.protocol.admin.AdminCodec} turns them into the JSON the node sends, with a
 * {@code "schema"} number, and back. The node writes them, the CLI reads them.
 */
package io.parityfs.node.protocol.admin;
