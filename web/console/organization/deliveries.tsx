/*
 * An endpoint's recent deliveries: each one's event, status (delivered, pending, failed), its
 * attempts and the last answer, and when; a failed one sent again with **Retry** (with its first
 * body and `webhook-id`, docs/integrations.md#retries-and-order).
 */
import { Problem, type Action } from '../forms';
import type { Delivery } from './types';
import { momentOf, timeOf } from '../dates';
import { rich, t } from '../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

export function Deliveries(props: {
  list: Delivery[] | null;
  reading: Action;
  url: string;
  busy: boolean;
  onRetry: (delivery: Delivery) => unknown;
  onRefresh: () => void;
}) {
  const { list } = props;
  return (
    <section class="deliveries" aria-label={t('console.organization.deliveries.label', { url: props.url })}>
      <div class="deliveries-head">
        <h3>{t('console.organization.deliveries.title')}</h3>
        <button type="button" class="quiet" disabled={props.reading.busy.value} onClick={props.onRefresh}>
          {rich('console.organization.deliveries.read_again', { url: props.url, hidden })}
        </button>
      </div>
      <Problem action={props.reading} />
      {!list ? (
        <p class="empty">{t('console.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.organization.deliveries.none')}</p>
      ) : (
        <ul class="delivery-list">
          {list.map((delivery) => (
            <li key={delivery.id} class={`delivery-row delivery-${delivery.status}`} data-delivery={delivery.id}>
              <code class="delivery-event">{delivery.event_type}</code>
              <span class="delivery-status">
                {t('console.organization.deliveries.status', { status: delivery.status })}
              </span>
              <span class="meta delivery-detail">{detailText(delivery)}</span>
              <time class="meta" dateTime={delivery.created_at} title={momentOf(delivery.created_at)}>
                {whenText(delivery.created_at)}
              </time>
              {delivery.status === 'failed' && (
                <button type="button" disabled={props.busy} onClick={() => void props.onRetry(delivery)}>
                  {rich('console.organization.deliveries.retry', { event: delivery.event_type, hidden })}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the last attempt got, in words: "1 attempt, answered 204", "3 attempts, answered 503: not now". */
function detailText(delivery: Delivery): string {
  const next =
    delivery.status === 'pending' && delivery.next_attempt_at && delivery.attempts > 0
      ? timeOf(delivery.next_attempt_at)
      : '';
  const values = { count: delivery.attempts, next, has_next: next ? 'yes' : 'no' };
  // The receiver's HTTP status, else the error as the service recorded it, kept as written.
  if (delivery.last_status_code !== null)
    return t('console.organization.deliveries.answered', { ...values, code: String(delivery.last_status_code) });
  if (delivery.last_error)
    return t('console.organization.deliveries.failed_with', { ...values, error: delivery.last_error });
  return t('console.organization.deliveries.attempts', values);
}

/** How long ago `iso` was, said as people say it ("3 min ago"), with the date and time past a day. */
function whenText(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 0) return momentOf(iso);
  if (seconds < 60) return t('console.organization.deliveries.just_now');
  if (seconds < 3600) return t('console.organization.deliveries.minutes_ago', { count: Math.floor(seconds / 60) });
  if (seconds < 86_400) return t('console.organization.deliveries.hours_ago', { count: Math.floor(seconds / 3600) });
  return momentOf(iso);
}
