/**
 * The keeper of protection across nodes (docs/across-nodes.md §5): everything that heals,
 * seals, moves and checks the groups of closed files after they were written, as opposed to
 * the streaming data path that writes and reads them ({@code io.parityfs.client}).
 *
 * <ul>
 *   <li>{@link io.parityfs.keeper.Repairer}: catch-up of the members a file's repair record
 *       names once their targets are back, seals of groups left in copies or cut by lease
 *       recovery, and the rebuild and copy of one member that re-protection and drains use;
 *       {@link io.parityfs.keeper.Repairer#handOff} hands fsck's findings to it;
 *   <li>{@link io.parityfs.keeper.Reprotector}: moves a file's members off lost targets
 *       (rebuilt) or draining ones (copied), and one file's rebalance move;
 *       {@link io.parityfs.keeper.MovePass} runs it over every file that uses a set of targets,
 *       under a mover lock per target; {@link io.parityfs.keeper.Rebalancer} plans and makes the
 *       moves that spread files onto new targets;
 *   <li>{@link io.parityfs.keeper.GroupCheck}: what {@code parityfs fsck} finds in a file's
 *       groups, read only;
 *   <li>{@link io.parityfs.keeper.AcrossKeeper}: the elected process ({@code parityfs keeper})
 *       that runs the lost members' hand-off ({@code LostMembers}), catch-up, re-protection,
 *       drains and checks in rounds; {@link io.parityfs.keeper.FileWalk} walks the namespace
 *       for them.
 * </ul>
 *
 * <p><b>What it may use.</b> Like a Curator recipe on {@code CuratorFramework}, the keeper is
 * built on public types only: {@link io.parityfs.client.ParityClient} (namespace, registry,
 * configuration, ZooKeeper session) and {@link io.parityfs.client.MemberIo}
 * ({@link io.parityfs.client.ParityClient#memberIo()}: stat, read and write of a member with
 * its tag, list, delete, the parity code, round sequences), the client's public errors
 * ({@link io.parityfs.client.ClientException}, {@link io.parityfs.client.FencedException}),
 * the metadata layer and the protocol's values ({@code ChunkStat}, {@code RoundTag}). It never
 * reaches into the client's package-private transport or writers ({@code ChunkIo},
 * {@code GroupWriter}, {@code GroupReads}, {@code StaleMembers}): what it needs of them goes
 * through {@code MemberIo}, and what a writer itself does before it writes (the restore of a
 * cut group when a new writer takes a file) stays in the client ({@code CutGroup}).
 *
 * <p>The CLI ({@code parityfs repair, fsck, reprotect, node drain, node remove, rebalance,
 * keeper}) and the tests construct these classes themselves: nothing in the client refers to
 * this package.
 */
package io.parityfs.keeper;
