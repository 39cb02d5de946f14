import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, with only PATH and `env` in its environment. */
export async function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<ProcessResult> {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Runs a compiled script of ours to its end, with only PATH and `env` in its environment. */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<ProcessResult> {
  return runProcess(process.execPath, [script, ...args], env, cwd);
}

/** The JSON lines a program printed, parsed (other lines left out). */
export const jsonLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
