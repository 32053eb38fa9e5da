// The exit codes of every ficta command, in one table (docs/troubleshooting.md "Exit codes").

/** Success. */
export const EXIT_OK = 0;
/** An operational error: one line `ficta: <area>: <what>` on stderr. */
export const EXIT_ERROR = 1;
/** A usage error: an unknown command or option, a bad value, a config error found while parsing flags. */
export const EXIT_USAGE = 2;
/** A request was blocked (or a value withheld) and a `--fail-on-*` option asked for a failing exit. */
export const EXIT_BLOCKED = 3;
/** `ficta run` and the agent commands: ficta failed before the command started (as `docker run` uses 125). */
export const EXIT_RUN_FAILED = 125;
/** The command to run exists but cannot be executed (the shell's code). */
export const EXIT_NOT_EXECUTABLE = 126;
/** The command to run was not found (the shell's code). */
export const EXIT_NOT_FOUND = 127;
/** Interrupted: Ctrl-C at a prompt, or SIGINT before anything ran (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;
