/** Tokens asked about at the same time: a check of every connection must not take every pooled connection. */
const AT_ONCE = 20;

/**
 * Whether each distinct token (by hash) still works, asked once per token however many
 * connections share it, a few at a time. Used by the periodic checks of live connections.
 */
export async function tokensAlive(
  isAlive: (tokenHash: string) => Promise<boolean>,
  tokenHashes: Iterable<string>,
): Promise<Map<string, boolean>> {
  const distinct = [...new Set(tokenHashes)];
  const alive = new Map<string, boolean>();
  for (let at = 0; at < distinct.length; at += AT_ONCE) {
    const batch = distinct.slice(at, at + AT_ONCE);
    const answers = await Promise.all(batch.map((tokenHash) => isAlive(tokenHash)));
    batch.forEach((tokenHash, i) => alive.set(tokenHash, answers[i]!));
  }
  return alive;
}
