import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  eventMapTypes,
  GENERATED_EVENTS,
  GENERATED_OPENAPI,
  openApiTypes,
  SERVER_EVENTS,
} from '../client-sdk/scripts/generate';
import { useServer } from './helpers/cast';

/*
 * The SDK's generated sources are committed; these tests fail when they differ from what the
 * service generates now, so the SDK cannot drift from it. `npm run sdk:generate` writes them again.
 */

const t = useServer();

describe('SDK generated sources', () => {
  it("hold the types of the running server's OpenAPI document", async () => {
    const document = await (await fetch(`${t.url}/v1/openapi.json`)).json();
    const generated = await openApiTypes(document);
    // One line of difference reads better than a 10,000-line diff.
    const committed = readFileSync(GENERATED_OPENAPI, 'utf8');
    const committedLines = committed.split('\n');
    const firstDifference = generated.split('\n').findIndex((line, i) => line !== committedLines[i]);
    expect(firstDifference, 'client-sdk/src/generated/openapi.ts is out of date: run npm run sdk:generate').toBe(-1);
    expect(generated.length).toBe(committed.length);
  });

  it("hold the server's Socket.IO event map", () => {
    const generated = eventMapTypes(readFileSync(SERVER_EVENTS, 'utf8'));
    expect(generated, 'client-sdk/src/generated/events.ts is out of date: run npm run sdk:generate').toBe(
      readFileSync(GENERATED_EVENTS, 'utf8'),
    );
  });

  it('refuse an event map that imports a server type the SDK does not name', () => {
    const source =
      "import type { BananaOutput } from '../modules/bananas/schemas';\nexport interface X { banana: BananaOutput }\n";
    expect(() => eventMapTypes(source)).toThrow(/BananaOutput/);
  });
});
