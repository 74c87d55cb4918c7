/**
 * Waiting in tests. `until` is the positive wait: it returns as soon as what the test waits for
 * happened. `quietFor` is the only sleep left, for the few assertions that something did NOT
 * happen: there is no event to await for an absence, so the test gives it a short, named window.
 */

/**
 * Polls `check` (sync or async) until it holds; throws `timed out waiting for <what>` after `timeoutMs`.
 * It looks every 10 ms at first, then less often, up to every 100 ms: most waits end within a few
 * looks, and a long one (a page's text, a read over HTTP) no longer costs the machine a request or
 * a browser round trip every 10 ms while it waits for the server and the browser to get there.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
  firstEveryMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let everyMs = firstEveryMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    everyMs = Math.max(everyMs, Math.min(everyMs * 1.5, 100));
  }
}

/**
 * Lets `ms` pass so that something which should NOT happen (an event, a relay, an unload) would
 * have had the time to show up. Say in `_why` what the window stands for; keep it short.
 */
export async function quietFor(ms: number, _why: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sends a write again while it answers 503: on a busy machine a request may wait past the
 * second a lock is waited for, and answer 503 having written nothing, as a client would retry.
 */
export async function answeredBeyond503<T extends { status: number }>(send: () => Promise<T>, tries = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 503 || attempt === tries) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
