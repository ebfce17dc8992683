#!/usr/bin/env node
/**
 * `openpaw`: submit a problem and follow it, search papers deciding each checkpoint, check a run, cancel one.
 * `node dist/apps/cli/src/main.js solve "2x + 3 = 7"` (see apps/cli/README.md).
 */
import { runCli } from './cli.js';
import { processIo } from './io.js';

// The environment is read here, once; the CLI takes it from `io.env`.
const io = processIo(process.env);
process.exitCode = await runCli(process.argv.slice(2), io);
io.close();
