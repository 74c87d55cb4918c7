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
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve();
      }),
    );
    const secret = new Promise<string>((resolve, reject) =>
      child.once('exit', (code) =>
        code === 0 ? resolve(/secret=(\w+)/.exec(out)?.[1] ?? '') : reject(new Error(`exited with ${code}: ${out}`)),
      ),
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
    const config = loadConfig({
      DATABASE_URL: 'postgres://app:pw@db.internal:5432/workshops',
      DATABASE_POOL_SIZE: '20',
      SECRET: 'a'.repeat(32),
    });
    expect(config).toMatchObject({ databaseUrl: 'postgres://app:pw@db.internal:5432/workshops', databasePoolSize: 20 });
    expect(loadConfig({ DATABASE_PATH: join(dir, 'plain', 'w.db') })).toMatchObject({
      databaseUrl: undefined,
      databasePoolSize: 10,
    });
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db/workshops', SECRET: 'a'.repeat(32) })).toThrow(
      /DATABASE_URL="mysql:\/\/db\/workshops": expected a postgres:\/\/ URL/,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/workshops', DATABASE_POOL_SIZE: '0', SECRET: 'a'.repeat(32) }),
    ).toThrow(/DATABASE_POOL_SIZE="0"/);
    // Instances on several machines must sign alike: a secret generated on one of them would not do.
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/workshops' })).toThrow(
      /^SECRET must be set when DATABASE_URL is/,
    );
  });

  it('sync SQLite commits to disk unless SQLITE_SYNCHRONOUS=normal, and refuse another value in one line', () => {
    const path = { DATABASE_PATH: join(dir, 'sync', 'w.db'), SECRET: 'a'.repeat(32) };
    expect(loadConfig(path)).toMatchObject({ sqliteSynchronous: 'full' });
    expect(loadConfig({ ...path, SQLITE_SYNCHRONOUS: 'full' })).toMatchObject({ sqliteSynchronous: 'full' });
    expect(loadConfig({ ...path, SQLITE_SYNCHRONOUS: 'normal' })).toMatchObject({ sqliteSynchronous: 'normal' });
    for (const bad of ['off', 'NORMAL', '1', '']) {
      expect(() => loadConfig({ ...path, SQLITE_SYNCHRONOUS: bad })).toThrow(
        new RegExp(`^Invalid configuration: SQLITE_SYNCHRONOUS=${JSON.stringify(bad)}: expected full or normal$`),
      );
    }
  });
});

describe('the files settings', () => {
  const secret = 'b'.repeat(32);
  const plain = () => ({ DATABASE_PATH: join(dir, 'files-settings', 'w.db') });

  it('keep files in FILES_DIR unless FILES_URL names a bucket', () => {
    expect(loadConfig(plain())).toMatchObject({ filesDir: './data/files', filesUrl: undefined, s3: {} });
    for (const url of [
      's3://workshop-files',
      's3://abc',
      's3://my.bucket-1/prod',
      's3://files-eu/prod/eu-west/',
      "s3://files/a_b/c!d/e*f/(g)/'h'",
    ]) {
      expect(loadConfig({ ...plain(), FILES_URL: url, SECRET: secret }).filesUrl, url).toBe(url);
    }
  });

  it('take the AWS SDK variables for the bucket, AWS_ENDPOINT_URL_S3 before AWS_ENDPOINT_URL, empty ones as unset', () => {
    const config = loadConfig({
      ...plain(),
      FILES_URL: 's3://workshop-files/prod',
      SECRET: secret,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI',
      AWS_ENDPOINT_URL: 'http://minio.internal:9000',
      AWS_ENDPOINT_URL_S3: 'http://s3.internal:9000',
      AWS_SESSION_TOKEN: '',
    });
    expect(config.s3).toEqual({
      region: 'eu-west-1',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI',
      endpoint: 'http://s3.internal:9000',
    });
    expect(
      loadConfig({
        ...plain(),
        FILES_URL: 's3://workshop-files',
        SECRET: secret,
        AWS_ENDPOINT_URL: 'http://minio.internal:9000',
      }).s3,
    ).toEqual({
      endpoint: 'http://minio.internal:9000',
    });
  });

  it('refuse a FILES_URL or an endpoint that cannot work, with one line naming it', () => {
    for (const url of [
      's3://ab',
      'https://workshop-files',
      's3://Workshop-Files',
      's3://-files',
      's3://files-',
      's3://files//prefix',
      's3://files/a b',
      's3://' + 'a'.repeat(64),
      's3://',
    ]) {
      let message = '';
      try {
        loadConfig({ ...plain(), FILES_URL: url, SECRET: secret });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, url).toContain(`FILES_URL=${JSON.stringify(url)}: expected s3://bucket or s3://bucket/prefix`);
      expect(message.split('\n'), url).toHaveLength(1);
    }
    expect(() =>
      loadConfig({ ...plain(), FILES_URL: 's3://workshop-files', SECRET: secret, AWS_ENDPOINT_URL_S3: 'minio:9000' }),
    ).toThrow(/^Invalid configuration: AWS_ENDPOINT_URL_S3="minio:9000": expected an http\(s\) URL/);
  });

  it('require SECRET with FILES_URL, as with DATABASE_URL: instances sharing the bucket must sign links alike', () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
        return '';
      } catch (err) {
        expect((err as Error).name).toBe('ConfigError');
        return (err as Error).message;
      }
    };
    const files = refusal({ ...plain(), FILES_URL: 's3://workshop-files' });
    expect(files).toBe(
      'SECRET must be set when FILES_URL is: every instance sharing the files must sign links with the same secret.',
    );
    const both = refusal({ ...plain(), FILES_URL: 's3://workshop-files', DATABASE_URL: 'postgres://db/workshops' });
    expect(both).toMatch(/^SECRET must be set when DATABASE_URL and FILES_URL are: /);
    expect(both.split('\n')).toHaveLength(1);
    // Without either, the secret generated and kept in the data folder does.
    expect(loadConfig(plain()).secret).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the lease settings', () => {
  it('take the mail and export leases from MAIL_LEASE_MS and EXPORT_LEASE_MS, from a second to the longest timer', () => {
    const plain = join(dir, 'leases', 'w.db');
    expect(loadConfig({ DATABASE_PATH: plain })).toMatchObject({ mailLeaseMs: 120_000, exportLeaseMs: 300_000 });
    expect(loadConfig({ DATABASE_PATH: plain, MAIL_LEASE_MS: '3000', EXPORT_LEASE_MS: '1000' })).toMatchObject({
      mailLeaseMs: 3_000,
      exportLeaseMs: 1_000,
    });
    expect(() => loadConfig({ DATABASE_PATH: plain, MAIL_LEASE_MS: '999' })).toThrow(
      /MAIL_LEASE_MS="999": expected a whole number of milliseconds, from 1000 to 2147483647/,
    );
    // Past it, Node fires a timer at once: the lease would end as it began.
    expect(() => loadConfig({ DATABASE_PATH: plain, EXPORT_LEASE_MS: '2147483648' })).toThrow(
      /EXPORT_LEASE_MS="2147483648"/,
    );
    expect(() => loadConfig({ DATABASE_PATH: plain, EXPORT_LEASE_MS: '2.5s' })).toThrow(/EXPORT_LEASE_MS="2.5s"/);
  });
});

describe('the OpenID provider settings', () => {
  it('take the provider from OIDC_ISSUER and its client, all three or none, https unless on this machine', () => {
    const path = { DATABASE_PATH: join(dir, 'oidc', 'w.db') };
    const client = { OIDC_CLIENT_ID: 'workshops', OIDC_CLIENT_SECRET: 's3cret' };
    expect(loadConfig(path).oidc).toBeUndefined();
    expect(loadConfig({ ...path, ...client, OIDC_ISSUER: 'https://id.example.com/realms/acme' }).oidc).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      clientId: 'workshops',
      clientSecret: 's3cret',
      name: 'id.example.com',
    });
    expect(
      loadConfig({ ...path, ...client, OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_NAME: 'Acme ID' }).oidc?.name,
    ).toBe('Acme ID');
    const half = (() => {
      try {
        loadConfig({ ...path, OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'workshops' });
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(half).toBe(
      'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together: OIDC_CLIENT_SECRET is missing.',
    );
    expect(() => loadConfig({ ...path, ...client, OIDC_ISSUER: 'http://id.example.com' })).toThrow(
      /OIDC_ISSUER="http:\/\/id.example.com": expected an https URL/,
    );
  });
});
