import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';

const dir = mkdtempSync(join(tmpdir(), 'workshops-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts processes that each load the configuration at the same moment (they wait for a `go`
 * file once loaded), and resolves with the secret each settled on.
 */
async function secretsOfSimultaneousStarts(dataDir: string, count: number): Promise<string[]> {
  const go = join(dir, `go-${Math.random().toString(36).slice(2)}`);
  const script = [
    `import { existsSync, readFileSync } from 'node:fs';`,
    `import { loadConfig } from './src/config.ts';`,
    `process.stdout.write('ready\\n');`,
    `while (!existsSync(${JSON.stringify(go)})) {}`,
    // Spin to a shared instant, so the processes (as many as there are cores) race for real.
    `const at = Number(readFileSync(${JSON.stringify(go)}, 'utf8'));`,
    `while (performance.timeOrigin + performance.now() < at) {}`,
    `process.stdout.write('secret=' + loadConfig({ DATABASE_PATH: ${JSON.stringify(join(dataDir, 'w.db'))} }).secret + '\\n');`,
  ].join('\n');
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    }));
    const secret = new Promise<string>((resolve, reject) =>
      child.once('exit', (code) => (code === 0 ? resolve(/secret=(\w+)/.exec(out)?.[1] ?? '') : reject(new Error(`exited with ${code}: ${out}`)))),
    );
    return { ready, secret };
  });
  await Promise.all(children.map((c) => c.ready));
  writeFileSync(go, String(Date.now() + 200));
  return Promise.all(children.map((c) => c.secret));
}

describe('generated secret', () => {
  it('is one secret for instances starting together on a fresh data folder', async () => {
    for (let round = 0; round < 4; round++) {
      const dataDir = join(dir, `fresh-${round}`);
      const secrets = await secretsOfSimultaneousStarts(dataDir, 2);
      expect(new Set(secrets).size, secrets.join('\n')).toBe(1);
      expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
      // No candidate file is left behind.
      expect(readdirSync(dataDir)).toEqual(['secret']);
    }
  });
});

describe('the store settings', () => {
  it('take PostgreSQL from DATABASE_URL with a pool size, and refuse what cannot work with one line each', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app:pw@db.internal:5432/workshops', DATABASE_POOL_SIZE: '20', SECRET: 'a'.repeat(32) });
    expect(config).toMatchObject({ databaseUrl: 'postgres://app:pw@db.internal:5432/workshops', databasePoolSize: 20 });
    expect(loadConfig({ DATABASE_PATH: join(dir, 'plain', 'w.db') })).toMatchObject({ databaseUrl: undefined, databasePoolSize: 10 });
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db/workshops', SECRET: 'a'.repeat(32) })).toThrow(/DATABASE_URL="mysql:\/\/db\/workshops": expected a postgres:\/\/ URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/workshops', DATABASE_POOL_SIZE: '0', SECRET: 'a'.repeat(32) })).toThrow(/DATABASE_POOL_SIZE="0"/);
    // Instances on several machines must sign alike: a secret generated on one of them would not do.
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/workshops' })).toThrow(/^SECRET must be set when DATABASE_URL is/);
  });
});
