import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig, type Config } from '../src/config';

/* CONTRACT §1: every limit has its own variable; `0` turns it off; a bad value stops the start with one line. */

/** Each limit's variable, the field it sets, and its default without the variable. */
const VARIABLES: Array<[variable: string, field: keyof Config, fallback: number]> = [
  ['IMPORTS_PER_MINUTE', 'importsPerMinute', 10],
  ['INVITATION_MAILS_PER_DAY', 'invitationMailsPerDay', 200],
  ['JOIN_ATTEMPTS_PER_MINUTE', 'joinAttemptsPerMinute', 10],
  ['JOIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE', 'joinAttemptsPerAddressPerMinute', 10],
  ['AUTH_ATTEMPTS_PER_MINUTE', 'authAttemptsPerMinute', 10],
  ['LOGIN_FAILURES_PER_ADDRESS_PER_MINUTE', 'loginFailuresPerAddressPerMinute', 30],
  ['SIGNUPS_PER_ADDRESS_PER_MINUTE', 'signupsPerAddressPerMinute', 10],
  ['CONFIRMATION_MAILS_PER_10_MINUTES', 'confirmationMailsPer10Minutes', 3],
  ['JOINS_PER_SOCKET_PER_10_SECONDS', 'joinsPerSocketPer10Seconds', 10],
  ['JOINS_PER_USER_PER_MINUTE', 'joinsPerUserPerMinute', 60],
  ['REPLAYED_EVENTS_PER_USER_PER_MINUTE', 'replayedEventsPerUserPerMinute', 2_500],
  ['PENDING_EXPORTS_PER_WORKSHOP', 'pendingExportsPerWorkshop', 5],
  ['PENDING_EXPORTS_PER_USER', 'pendingExportsPerUser', 10],
];

// A secret given, so loading writes no file.
const load = (env: Record<string, string>) => loadConfig({ SECRET: 'a'.repeat(32), ...env });

describe('limit settings', () => {
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
    for (const [, field, fallback] of VARIABLES) expect(config[field], field).toBe(field === 'joinsPerUserPerMinute' ? 7 : fallback);
  });

  it('keep the per-address budgets following the per-user ones unless set themselves', () => {
    expect(load({ JOIN_ATTEMPTS_PER_MINUTE: '4', AUTH_ATTEMPTS_PER_MINUTE: '7' })).toMatchObject({
      joinAttemptsPerAddressPerMinute: 4,
      loginFailuresPerAddressPerMinute: 21,
      signupsPerAddressPerMinute: 7,
    });
    expect(load({ AUTH_ATTEMPTS_PER_MINUTE: '0' })).toMatchObject({ authAttemptsPerMinute: 0, loginFailuresPerAddressPerMinute: 0, signupsPerAddressPerMinute: 0 });
    expect(load({ JOIN_ATTEMPTS_PER_MINUTE: '4', JOIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '300', AUTH_ATTEMPTS_PER_MINUTE: '0', SIGNUPS_PER_ADDRESS_PER_MINUTE: '2' })).toMatchObject({
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
        expect(message).toBe(`Invalid configuration: ${variable}=${JSON.stringify(bad)}: expected a whole number from 0 (no limit) to 1000000000`);
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
      if (['authAttemptsPerMinute', 'loginFailuresPerAddressPerMinute', 'signupsPerAddressPerMinute'].includes(field)) continue;
      expect(config[field], field).toBe(fallback);
    }
    // Test files sign many users up from one address.
    expect(config).toMatchObject({ authAttemptsPerMinute: 10_000, loginFailuresPerAddressPerMinute: 30_000, signupsPerAddressPerMinute: 10_000 });
    expect(testConfig({ databasePath: 'unused.db', filesDir: 'unused', authAttemptsPerMinute: 5, joinAttemptsPerMinute: 2 })).toMatchObject({
      loginFailuresPerAddressPerMinute: 15,
      signupsPerAddressPerMinute: 5,
      joinAttemptsPerAddressPerMinute: 2,
    });
  });
});
