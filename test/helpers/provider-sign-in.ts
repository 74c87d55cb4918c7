import { expect } from 'vitest';
import type { ProviderAccount, TestProvider } from './oidc-provider';
import { checkResponse } from './response-check';

/*
 * A sign-in through the in-process OpenID provider (`oidc-provider.ts`) as a browser makes it:
 * cookies kept per site, redirects followed by hand, the provider's login and consent forms
 * filled in (docs/integrations.md#single-sign-on).
 */

/** Cookies by name, as a browser keeps them for one site. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Signing in at the app at `appUrl` through `op`. */
export function providerBrowser(app: { readonly url: string }, op: TestProvider) {
  /** A GET as a browser would follow it by hand: its cookies sent and kept, its redirect not followed. */
  async function visit(url: string, jar: Jar, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: jar.header() } });
    jar.take(res);
    if (url.startsWith(app.url)) {
      // What the app answers is held against its OpenAPI document, as every other test's requests are.
      await checkResponse(app.url, init.method ?? 'GET', url, { status: res.status, contentType: '', body: '' });
    }
    return res;
  }

  /**
   * Starts a sign-in at the app: the provider's authorization URL, with the app's cookie in `jar`;
   * `clientState` is the console tab's one-time value, when the test plays a tab.
   */
  async function start(jar: Jar, returnTo = '/workshops/abc', clientState?: string): Promise<URL> {
    const query = new URLSearchParams({ return_to: returnTo, ...(clientState ? { client_state: clientState } : {}) });
    const res = await visit(`${app.url}/v1/auth/oidc/start?${query}`, jar);
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!);
  }

  /**
   * Goes through the provider's login and consent forms as `login`, up to where it sends the
   * browser back to the app: that callback URL.
   */
  async function atProvider(authorization: URL, login: string): Promise<URL> {
    const jar = new Jar();
    let url = authorization.href;
    for (let hops = 0; hops < 12; hops++) {
      if (url.startsWith(app.url)) return new URL(url);
      const res = await visit(url, jar);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        continue;
      }
      const html = await res.text();
      expect(res.status, html).toBe(200);
      const action = new URL(/<form[^>]*action="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&'), url).href;
      const form: Record<string, string> = html.includes('name="login"')
        ? { prompt: 'login', login, password: 'anything' }
        : { prompt: 'consent' };
      const posted = await visit(action, jar, {
        method: 'POST',
        body: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(posted.status, await posted.clone().text()).toBeLessThan(400);
      url = new URL(posted.headers.get('location')!, action).href;
    }
    throw new Error('the provider never sent the browser back');
  }

  /** Where the callback sends the browser, and the fragment it carries. */
  async function callback(url: URL, jar: Jar): Promise<{ location: URL; fragment: URLSearchParams }> {
    const res = await visit(url.href, jar);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    return { location, fragment: new URLSearchParams(location.hash.slice(1)) };
  }

  /** A whole sign-in as `login`, whose claims are `account`: the fragment the console is sent (its token, or the problem). */
  async function signIn(login: string, account: ProviderAccount, returnTo = '/'): Promise<URLSearchParams> {
    op.accounts.set(login, account);
    const jar = new Jar();
    return (await callback(await atProvider(await start(jar, returnTo), login), jar)).fragment;
  }

  return { visit, start, atProvider, callback, signIn };
}
