/** The CLI's version: `openpaw --version`; equal to `apps/cli/package.json`'s (a spec checks). */
export const CLI_VERSION = '0.2.0';

/**
 * Version of the `--json` document (`{ "version", "command", "exitCode", "result" }`): raised when a
 * field is removed or changes meaning; adding a field keeps it.
 */
export const JSON_OUTPUT_VERSION = 1;
