import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig, type Config } from '../src/config';
import { LIMITS, type LimitName } from '../src/config-limits';

/*
 * Rate limits (docs/configuration.md#rate-limits-and-caps): every limit has its own variable; `0`
 * turns it off; a bad value stops the start with one line.
 */

/** A row of the table of limits in docs/configuration.md#rate-limits-and-caps. */
interface DocumentedLimit {
  variable: string;
  /** Its default: a number, or a multiple of the variable it follows. */
  fallback: number | { follows: string; times: number };
  /** The window its "counted per" column names, in seconds; null for "at any moment". */
  windowS: number | null;
}

const WINDOWS: Record<string, number | null> = {
  minute: 60,
  '10 minutes': 600,
  '24 hours': 86_400,
  '10 s': 10,
  'at any moment': null,
};

/** The limits as docs/configuration.md documents them, so the code and the operators' table cannot part. */
function documentedLimits(): DocumentedLimit[] {
  const page = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const start = page.indexOf('\n## Rate limits and caps\n');
  if (start === -1) throw new Error('docs/configuration.md has no "## Rate limits and caps" section');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variable, fallback, , per] = line
        .split('|')
        .slice(1)
        .map((cell) => cell.trim());
      const number = /^`(\d+)`/.exec(fallback!);
      const follows = /^(?:(\d+) × )?`([A-Z_0-9]+)`$/.exec(fallback!);
      const window = per!.split(', ').at(-1)!;
      if (!(window in WINDOWS))
        throw new Error(`docs/configuration.md: ${variable} counts per "${window}", a window this test does not know`);
      return {
        variable: variable!.replaceAll('`', ''),
        fallback: number ? Number(number[1]) : { follows: follows![2]!, times: Number(follows![1] ?? 1) },
        windowS: WINDOWS[window]!,
      };
    });
}

const DOCUMENTED = documentedLimits();
/** The field each documented variable sets. */
const fieldOf = (variable: string): LimitName => {
  const field = (Object.keys(LIMITS) as LimitName[]).find((name) => LIMITS[name].env === variable);
  if (!field) throw new Error(`${variable} sets no limit`);
  return field;
};
const VARIABLES: Array<[variable: string, field: keyof Config, fallback: number]> = DOCUMENTED.map(
  ({ variable, fallback }) => {
    const value = (given: DocumentedLimit['fallback']): number => {
      if (typeof given === 'number') return given;
      return given.times * value(DOCUMENTED.find((limit) => limit.variable === given.follows)!.fallback);
    };
    return [variable, fieldOf(variable), value(fallback)];
  },
);

// A secret given, so loading writes no file.
const load = (env: Record<string, string>) => loadConfig({ SECRET: 'a'.repeat(32), ...env });

describe('limit settings', () => {
  it('are the documented ones, each with its window', () => {
    expect(DOCUMENTED.map(({ variable }) => variable).sort()).toEqual(
      Object.values(LIMITS)
        .map(({ env }) => env)
        .sort(),
    );
    for (const { variable, windowS } of DOCUMENTED) expect(LIMITS[fieldOf(variable)].windowS, variable).toBe(windowS);
  });

  it('have their documented defaults', () => {
    const config = load({});
    for (const [, field, fallback] of VARIABLES) expect(config[field], field).toBe(fallback);
  });

  it('each take their own variable, 0 included', () => {
    for (const [index, [variable, field]] of VARIABLES.entries()) {
      expect(load({ [variable]: String(index + 1) })[field], variable).toBe(index + 1);
      expect(load({ [variable]: '0' })[field], variable).toBe(0);
    }
  });

  it('set only their own limit', () => {
    const config = load({ JOINS_PER_USER_PER_MINUTE: '7' });
    for (const [, field, fallback] of VARIABLES)
      expect(config[field], field).toBe(field === 'joinsPerUserPerMinute' ? 7 : fallback);
  });

  it('keep the per-address budgets following the per-user ones unless set themselves', () => {
    expect(load({ JOIN_ATTEMPTS_PER_MINUTE: '4', AUTH_ATTEMPTS_PER_MINUTE: '7' })).toMatchObject({
      joinAttemptsPerAddressPerMinute: 24,
      joinAttemptsPerAddressPerDay: 200,
      loginFailuresPerAddressPerMinute: 21,
      signupsPerAddressPerMinute: 7,
    });
    expect(load({ JOIN_ATTEMPTS_PER_MINUTE: '0' })).toMatchObject({
      joinAttemptsPerMinute: 0,
      joinAttemptsPerAddressPerMinute: 0,
      joinAttemptsPerAddressPerDay: 0,
    });
    expect(load({ AUTH_ATTEMPTS_PER_MINUTE: '0' })).toMatchObject({
      authAttemptsPerMinute: 0,
      loginFailuresPerAddressPerMinute: 0,
      signupsPerAddressPerMinute: 0,
    });
    expect(
      load({
        JOIN_ATTEMPTS_PER_MINUTE: '4',
        JOIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '300',
        AUTH_ATTEMPTS_PER_MINUTE: '0',
        SIGNUPS_PER_ADDRESS_PER_MINUTE: '2',
      }),
    ).toMatchObject({
      joinAttemptsPerMinute: 4,
      joinAttemptsPerAddressPerMinute: 300,
      loginFailuresPerAddressPerMinute: 0,
      signupsPerAddressPerMinute: 2,
    });
  });

  it('refuse a negative, fractional, textual, empty or huge value with one line naming the variable', () => {
    for (const [variable] of VARIABLES) {
      for (const bad of ['-1', '1.5', 'ten', '', ' 5', '1e3', '10000000000', '1000000001']) {
        let error: unknown;
        try {
          load({ [variable]: bad });
        } catch (err) {
          error = err;
        }
        expect(error, `${variable}=${JSON.stringify(bad)}`).toBeInstanceOf(ConfigError);
        const message = (error as ConfigError).message;
        expect(message).toBe(
          `Invalid configuration: ${variable}=${JSON.stringify(bad)}: expected a whole number from 0 (no limit) to 1000000000`,
        );
      }
    }
  });

  it('name every bad limit at once, still on one line', () => {
    expect(() => load({ IMPORTS_PER_MINUTE: 'x', PENDING_EXPORTS_PER_USER: '-3' })).toThrow(
      /^Invalid configuration: IMPORTS_PER_MINUTE="x": [^\n]+; PENDING_EXPORTS_PER_USER="-3": [^\n]+$/,
    );
  });

  it("keep the tests' defaults in testConfig, with the address budgets following overrides", () => {
    const config = testConfig({ databasePath: 'unused.db', filesDir: 'unused' });
    for (const [, field, fallback] of VARIABLES) {
      const followsAuthAttempts = [
        'authAttemptsPerMinute',
        'loginFailuresPerAddressPerMinute',
        'signupsPerAddressPerMinute',
        'passwordResetsPerAddressPer10Minutes',
      ];
      if (followsAuthAttempts.includes(field)) continue;
      expect(config[field], field).toBe(fallback);
    }
    // Test files sign many users up from one address.
    expect(config).toMatchObject({
      authAttemptsPerMinute: 10_000,
      loginFailuresPerAddressPerMinute: 30_000,
      signupsPerAddressPerMinute: 10_000,
      passwordResetsPerAddressPer10Minutes: 30_000,
    });
    expect(
      testConfig({ databasePath: 'unused.db', filesDir: 'unused', authAttemptsPerMinute: 5, joinAttemptsPerMinute: 2 }),
    ).toMatchObject({
      loginFailuresPerAddressPerMinute: 15,
      signupsPerAddressPerMinute: 5,
      joinAttemptsPerAddressPerMinute: 12,
      joinAttemptsPerAddressPerDay: 100,
    });
  });
});

describe('UPLOAD_UNATTACHED_HOURS', () => {
  it('keeps an upload attached to nothing 24 hours unless set, from 1 hour on; a bad value stops the start with one line', () => {
    expect(load({}).uploadUnattachedHours).toBe(24);
    expect(load({ UPLOAD_UNATTACHED_HOURS: '1' }).uploadUnattachedHours).toBe(1);
    expect(load({ UPLOAD_UNATTACHED_HOURS: '720' }).uploadUnattachedHours).toBe(720);
    // 0 would remove an upload before it could be attached.
    for (const bad of ['0', '-1', '1.5', 'day', '', '87601']) {
      expect(() => load({ UPLOAD_UNATTACHED_HOURS: bad }), bad).toThrow(
        new ConfigError(
          `Invalid configuration: UPLOAD_UNATTACHED_HOURS=${JSON.stringify(bad)}: expected a whole number of hours, from 1 to 87600`,
        ),
      );
    }
  });
});
