/*
 * What a view that opens one thing (a workshop, an organization) shows until it is open: that it
 * is opening, or why it cannot be, with the way back to the workshops.
 */
import { t } from './i18n';
import { Link } from './router';

export function NotOpen(props: { title: string; problem: string; opening: string }) {
  if (!props.problem)
    return (
      <main class="narrow">
        <p role="status">{props.opening}</p>
      </main>
    );
  return (
    <main class="narrow">
      <h1>{props.title}</h1>
      <p role="alert" class="problem">
        {props.problem}
      </p>
      <p>
        <Link href="/">{t('console.back_home')}</Link>
      </p>
    </main>
  );
}
