/**
 * The {@code parityfs} command line: namespace commands (ls, stat, put, get, cat, mkdir, rm, mv,
 * du, df, setstripe, getstripe) and administration (nodes, targets, drives, fail-drive,
 * replace-drive, rebuild, scrub), built with picocli on {@link io.parityfs.client.ParityClient}.
 * {@link io.parityfs.cli.Main} is the entry point (run by {@code bin/parityfs}); everything else
 * is package-private. Output formats, {@code --json} and exit codes are documented in
 * {@code docs/cli.md}; {@link io.parityfs.cli.ExitStatus} holds the codes.
 */
package io.parityfs.cli;
