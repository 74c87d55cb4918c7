import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * A throwaway PostgreSQL cluster from Debian's `postgresql` package, for the test suite and the
 * benches: made in a temporary folder, started on a free loopback port, removed when stopped.
 * `initdb` refuses to run as root: as root, the cluster runs as the `postgres` user the package
 * creates. Its databases take the locale most installations default to (`C.UTF-8`): the service
 * declares the bytewise order it needs on its own columns, whatever the database's locale.
 */

/** The newest installed PostgreSQL's programs, or null. */
export function postgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/`: append a database name. */
  baseUrl: string;
  port: number;
  /** Stops the server at once and removes its folder. */
  stop(): void;
  /** Stops the server at once, as a crash or a failover would, keeping its data: `resume` brings it back. */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port with the same data. */
  resume(): Promise<void>;
}

/**
 * Starts a cluster; `settings` are server settings (`fsync=off` for tests, where nothing must
 * survive). Trust authentication on loopback only.
 */
export async function startPostgresCluster(settings: string[] = []): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql).');
  const asRoot = process.getuid?.() === 0;
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
  const run = (program: string, args: string[]) => execFileSync(...command(program, args), { stdio: 'pipe' });
  // Halting and resuming happen under load from the same process: they must not block its event loop.
  const runAsync = (program: string, args: string[]) =>
    new Promise<void>((resolve, reject) =>
      execFile(...command(program, args), (err) => (err ? reject(err) : resolve())),
    );

  const dir = mkdtempSync(join(tmpdir(), 'workshops-pg-'));
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C.UTF-8', '-E', 'UTF8']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');
  const startArgs = ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'];
  run('pg_ctl', startArgs);
  return {
    baseUrl: `postgres://postgres@127.0.0.1:${port}/`,
    port,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
    halt: () => runAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: () => runAsync('pg_ctl', startArgs),
  };
}
