import { randomBytes } from 'node:crypto';
import { tablesOf, type Database } from '../src/db/database';
import { dummyPasswordHash, hashToken, newToken } from '../src/modules/auth/crypto';

/**
 * Participants with a bearer token each, written straight into the measured server's database:
 * signing thousands of users up through the API would spend minutes in scrypt, which is not what
 * this bench measures. They then join the workshop through the API, with its access code.
 */
export async function seedParticipants(database: Database, count: number): Promise<string[]> {
  const run = randomBytes(4).toString('hex');
  const now = new Date();
  const expires = new Date(now.getTime() + 24 * 3600 * 1000).toISOString();
  const tokens: string[] = [];
  await database.transaction(async (tx) => {
    const { authTokens, users } = tablesOf(tx);
    for (let i = 0; i < count; i++) {
      const [user] = await tx
        .insert(users)
        .values({
          email: `bench-${run}-${i}@example.test`,
          name: `Participant ${i}`,
          // Never checked: these people come in with the tokens made below.
          passwordHash: dummyPasswordHash(10),
        })
        .returning({ id: users.id });
      const token = newToken();
      await tx
        .insert(authTokens)
        .values({ userId: user!.id, tokenHash: hashToken(token), lastUsedAt: now.toISOString(), expiresAt: expires });
      tokens.push(token);
    }
  });
  return tokens;
}

/** Runs `task` over `items` with at most `concurrency` in flight. */
export async function inParallel<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}
