import { describe, expect, it } from 'vitest';
import type * as Sdk from '../client-sdk/src/generated/events';
import { statusOfCode, type KnownErrorCode, type ErrorCode as SdkErrorCode } from '../client-sdk/src/errors';
import { ERROR_STATUS, type ErrorCode as ServerErrorCode } from '../src/http/errors';
import type * as Server from '../src/realtime/events';

/*
 * The SDK's event types are the server's event map with the payloads' resources read from the
 * OpenAPI document instead of the server's schemas. These checks hold the two to each other:
 * `npm run typecheck` (CI runs it before the tests) fails when a payload the server sends is not
 * the payload the SDK's types describe, either way round.
 */

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type PayloadOf<Events, K extends keyof Events> = Events[K] extends (payload: infer P) => void ? P : never;

/** Each server event, and whether its payload is the SDK's payload of the same name. */
type PayloadsAgree = {
  [K in keyof Server.ServerToClientEvents]: K extends keyof Sdk.ServerToClientEvents
    ? Same<PayloadOf<Server.ServerToClientEvents, K>, PayloadOf<Sdk.ServerToClientEvents, K>>
    : false;
};
type AllTrue<T> = { [K in keyof T]: true };

describe('SDK event types', () => {
  it('describe every payload the server sends, and no other event', () => {
    const agree: AllTrue<PayloadsAgree> = {} as PayloadsAgree;
    const sameEvents: Same<keyof Server.ServerToClientEvents, keyof Sdk.ServerToClientEvents> = true;
    const sameRequests: [Same<Server.JoinRequest, Sdk.JoinRequest>, Same<Server.JoinAck, Sdk.JoinAck>] = [true, true];
    expect([agree, sameEvents, sameRequests]).toHaveLength(3);
  });

  it('know every error code the server answers with, and its status', () => {
    const known: Same<ServerErrorCode, Extract<SdkErrorCode, ServerErrorCode>> = true;
    const noneUnknown: Same<Exclude<KnownErrorCode, ServerErrorCode>, never> = true;
    expect([known, noneUnknown]).toEqual([true, true]);
    // A socket refusal carries only its code: the SDK gives it the status the server answers it with over REST.
    const statuses = Object.keys(ERROR_STATUS).map((code) => [code, statusOfCode(code)]);
    expect(Object.fromEntries(statuses)).toEqual(ERROR_STATUS);
  });

  it('tell a payload that differs from the server apart', () => {
    // @ts-expect-error a card payload without its card is not the server's
    const differs: Same<Server.CardCreatedPayload, Omit<Sdk.CardCreatedPayload, 'card'>> = true;
    expect(differs).toBe(true);
  });
});
