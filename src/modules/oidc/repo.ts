import { and, eq, lt } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';

type UserRow = Schema['users']['$inferSelect'];
export type OidcLoginRow = Schema['oidcLogins']['$inferSelect'];
export type IdentityRow = Schema['userIdentities']['$inferSelect'];

export async function insertOidcLogin(
  tx: Db,
  values: Pick<OidcLoginRow, 'stateHash' | 'codeVerifier' | 'nonce' | 'returnTo' | 'clientState' | 'expiresAt'>,
): Promise<void> {
  const { oidcLogins } = tablesOf(tx);
  await tx.insert(oidcLogins).values(values);
}

/** Sign-ins nobody came back from: dropped as new ones start, so the table stays as small as the traffic. */
export async function deleteExpiredOidcLogins(tx: Db, now: string): Promise<void> {
  const { oidcLogins } = tablesOf(tx);
  await tx.delete(oidcLogins).where(lt(oidcLogins.expiresAt, now));
}

/** The sign-in its `state` names, removed as it is read: a second callback with the same `state` finds nothing. */
export async function takeOidcLogin(tx: Db, stateHash: string): Promise<OidcLoginRow | undefined> {
  const { oidcLogins } = tablesOf(tx);
  const [row] = await tx.delete(oidcLogins).where(eq(oidcLogins.stateHash, stateHash)).returning();
  return row;
}

export async function identityOf(tx: Db, issuer: string, subject: string): Promise<IdentityRow | undefined> {
  const { userIdentities } = tablesOf(tx);
  const [row] = await tx
    .select()
    .from(userIdentities)
    .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
  return row;
}

export async function insertIdentity(
  tx: Db,
  values: Pick<IdentityRow, 'userId' | 'issuer' | 'subject' | 'email' | 'addressProven'>,
): Promise<IdentityRow> {
  const { userIdentities } = tablesOf(tx);
  return (await tx.insert(userIdentities).values(values).returning())[0]!;
}

export async function setIdentityEmail(tx: Db, id: string, email: string | null): Promise<void> {
  const { userIdentities } = tablesOf(tx);
  await tx.update(userIdentities).set({ email }).where(eq(userIdentities.id, id));
}

/** An account opened through the provider: no password, confirmed when the provider vouches for the address. */
export async function insertProviderAccount(
  tx: Db,
  values: { email: string; name: string; confirmedAt: string | null; locale: string; timeZone: string },
): Promise<UserRow> {
  const { users } = tablesOf(tx);
  return (await tx.insert(users).values(values).returning())[0]!;
}
