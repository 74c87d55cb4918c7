import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { until } from './wait';

/** The server started as a separate process, its output kept. */
export interface ServerProcess {
  child: ChildProcess;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * Starts the server as production or `npm start` would (`command`: the program and its
 * arguments), with output piped, as to a log file.
 */
export function startProcess(command: [string, ...string[]], env: Record<string, string>): ServerProcess {
  const [program, ...args] = command;
  const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/**
 * The server (or, with `digest`, the by-hand daily digest) as production runs it: the run's build
 * of the sources (test/setup/server-bundle.ts) under plain `node`.
 */
export function serverCommand(entry: 'main' | 'digest' = 'main'): [string, ...string[]] {
  return [process.execPath, join(dirname(inject('serverBundle')), `${entry}.js`)];
}

/** The port the server's start line names, once it is listening (a port the OS picked for 0). */
export async function listeningPort(run: ServerProcess): Promise<number> {
  const portIn = () => /\(port (\d+),/.exec(run.stdout())?.[1];
  await until(() => portIn() !== undefined || run.child.exitCode !== null, 'the start line naming the port', 15_000);
  if (portIn() === undefined) throw new Error(`exited before listening: ${run.stdout()} ${run.stderr()}`);
  return Number(portIn());
}
