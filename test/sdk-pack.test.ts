import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The SDK as an app gets it: `npm pack` in client-sdk, the tarball installed into an empty
 * project (its dependencies from npm's cache, or the registry when missing), a consumer file
 * type-checked against the published declarations, and the entry points imported in Node.
 *
 * Among the slowest files (about 20 s): it is four programs run one after the other: `npm pack`
 * (which builds the SDK), `npm install` of the tarball into an empty project, the type checker
 * twice (NodeNext and Bundler resolution) and Node importing the entry points.
 */

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '../client-sdk');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const consumer = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
afterAll(() => rmSync(consumer, { recursive: true, force: true }));

const run = (command: string, args: string[], cwd: string) => {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: err });
  }
};

const CONSUMER_SOURCE = `
import { ApiError, createClient, type Card, type Workshop } from 'workshop-sdk';
import { openWorkshop, timerRemainingMs, type WorkshopState } from 'workshop-sdk/live';
import { openCanvas, type Placement } from 'workshop-sdk/canvas';

const api = createClient({ baseUrl: 'http://localhost:3000', token: 'token' });

export async function screen(id: string): Promise<string> {
  const workshop: Workshop = await api.get('/v1/workshops/{id}', { params: { path: { id } } });
  const live = await openWorkshop(api, id);
  live.subscribe((state: WorkshopState) => console.log(state.cards.map((card: Card) => card.title), timerRemainingMs(state)));
  live.on('card:created', ({ card, seq }) => console.log(card.short_id, seq));
  const canvas = openCanvas(api, id);
  await canvas.synced;
  const placement: Placement | undefined = canvas.placement('card');
  for await (const event of api.paginate('/v1/workshops/{workshop_id}/events', { params: { path: { workshop_id: id } } })) console.log(event.action);
  try {
    await api.post('/v1/workshops', { body: { title: workshop.title } });
  } catch (err) {
    if (err instanceof ApiError) return err.code;
  }
  return String(placement?.x);
}

// @ts-expect-error not a route of the service
api.get('/v1/no-such-route');
// @ts-expect-error a card's title is a string
export const wrong: number = ({} as Card).title;
`;

describe('SDK package', () => {
  it('packs into a tarball that installs, type-checks and loads in an empty project', () => {
    run('npm', ['pack', '--pack-destination', consumer], sdkDir);
    const tarball = readdirSync(consumer).find((file) => file.endsWith('.tgz'));
    expect(tarball).toMatch(/^workshop-sdk-.*\.tgz$/);
    const listing = run('tar', ['-tzf', tarball!], consumer).split('\n');
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/live.js',
        'package/dist/canvas.js',
      ]),
    );
    expect(listing.filter((file) => file.startsWith('package/src/'))).toEqual([]);

    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
    );
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], consumer);

    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_SOURCE);
    const compilerOptions = {
      target: 'ES2022',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    };
    for (const [module, moduleResolution] of [
      ['NodeNext', 'NodeNext'],
      ['ESNext', 'Bundler'],
    ]) {
      writeFileSync(
        join(consumer, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { ...compilerOptions, module, moduleResolution }, files: ['consumer.ts'] }),
      );
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer);
    }

    const loaded = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "for (const entry of ['workshop-sdk', 'workshop-sdk/live', 'workshop-sdk/canvas']) console.log(Object.keys(await import(entry)).sort().join())",
      ],
      consumer,
    );
    expect(loaded.trim().split('\n')).toEqual([
      'ApiError,createClient,newIdempotencyKey',
      'inLobby,openWorkshop,privacyOf,timerRemainingMs',
      'openCanvas',
    ]);
  }, 90_000);
});
