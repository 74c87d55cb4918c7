/*
 * The console's addresses, followed with the History API so each view has a link of its own:
 * `/` (the workshops, or sign in), `/signup`, `/confirm?token=…`, `/reset?token=…`, `/invitations/<token>`,
 * `/workshops/<id>` (optionally `?tab=`), `/organizations/<id>` (an organization's settings) and
 * `/account` (the signed-in person's own).
 * The server serves the same page at each.
 */
import { signal } from '@preact/signals';
import type { ComponentChildren, JSX } from 'preact';

export const location$ = signal({ path: location.pathname, query: new URLSearchParams(location.search) });

addEventListener('popstate', () => {
  location$.value = { path: location.pathname, query: new URLSearchParams(location.search) };
});

/** Goes to `href` within the console (a new history entry, or the current one replaced). */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  location$.value = { path: location.pathname, query: new URLSearchParams(location.search) };
  // A new view starts at its top, as a page load would.
  scrollTo(0, 0);
}

/** A link within the console: followed without a reload, opened in a new tab as usual with a modifier. */
export function Link(props: { href: string; children: ComponentChildren } & JSX.HTMLAttributes<HTMLAnchorElement>) {
  const { href, children, ...rest } = props;
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
