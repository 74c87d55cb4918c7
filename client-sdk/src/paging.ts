/**
 * The query of the `next` page named by a `Link` header (RFC 8288), or null on the last page.
 * Only the query is kept: the links are built on the server's public URL, which may not be the
 * address this client reaches it by (a proxy, a container network).
 */
export function nextPageQuery(link: string | null): Record<string, string> | null {
  // Links are matched whole, not split on commas: the server leaves commas in their queries.
  for (const [, url, rel] of (link ?? '').matchAll(/<([^>]*)>\s*;\s*rel="?([^";,]+)"?/g)) {
    if (rel === 'next') return Object.fromEntries(new URL(url!, 'http://link.invalid').searchParams);
  }
  return null;
}
