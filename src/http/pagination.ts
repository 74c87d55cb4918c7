import * as v from 'valibot';
import { queryInteger } from './validation';
import { said } from '../i18n/valibot';

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

/**
 * `page` starts at 1; `per_page` defaults to 30 and a value above 100 is served as 100 rather than
 * refused (spec: Limits), while 0, negatives and non-integers are a 400.
 */
export const PageQuery = {
  page: v.optional(queryInteger(1), '1'),
  per_page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, said('error.validation.positive_integer')),
      v.transform(Number),
      v.minValue(1, said('error.validation.at_least_one')),
      v.transform((n) => Math.min(n, MAX_PER_PAGE)),
    ),
    String(DEFAULT_PER_PAGE),
  ),
};

export interface Page {
  page: number;
  perPage: number;
}

export function pageOf(query: { page: number; per_page: number }): Page & { offset: number } {
  return { page: query.page, perPage: query.per_page, offset: (query.page - 1) * query.per_page };
}

/**
 * `X-Total-Count` and a `Link` header with `first`, `prev`, `next` and `last` (prev and next only
 * where such a page exists), as absolute URLs under `publicUrl` that keep the request's other
 * query members.
 */
export function pageHeaders(publicUrl: string, requestUrl: string, page: Page, total: number): Record<string, string> {
  const url = new URL(requestUrl);
  const last = Math.max(1, Math.ceil(total / page.perPage));
  const link = (n: number) => {
    const params = new URLSearchParams(url.search);
    params.set('page', String(n));
    params.set('per_page', String(page.perPage));
    // Commas are legal in a query string; keeping them makes `filters=a,b` links readable.
    return `${publicUrl}${url.pathname}?${params.toString().replaceAll('%2C', ',')}`;
  };
  const rels: Array<[string, number]> = [['first', 1]];
  if (page.page > 1) rels.push(['prev', Math.min(page.page - 1, last)]);
  if (page.page < last) rels.push(['next', page.page + 1]);
  rels.push(['last', last]);
  return {
    'X-Total-Count': String(total),
    Link: rels.map(([rel, n]) => `<${link(n)}>; rel="${rel}"`).join(', '),
  };
}
