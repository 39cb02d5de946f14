#!/usr/bin/env node
// The package's `bin` (restaurant-orders): runs the tool with the process's arguments and environment; Ctrl-C
// and SIGTERM stop a command that follows something, which then exits 0.
import { runCli } from './program.js';

const stop = new AbortController();
// A reader that went away (`restaurant-orders --help | head`) ends the output, not the process with a stack.
process.stdout.on('error', () => stop.abort());
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

void runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  signal: stop.signal,
}).then((code) => {
  process.exitCode = code;
});
