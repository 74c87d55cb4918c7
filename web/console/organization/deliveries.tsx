/*
 * An endpoint's recent deliveries: each one's event, status (delivered, pending, failed), its
 * attempts and the last answer, and when; a failed one sent again with **Retry** (with its first
 * body and `webhook-id`, docs/integrations.md#retries-and-order).
 */
import { Problem, type Action } from '../forms';
import type { Delivery } from './types';
import { momentOf, timeOf } from '../dates';

const STATUS_WORDS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
};

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
    <section class="deliveries" aria-label={`Recent deliveries to ${props.url}`}>
      <div class="deliveries-head">
        <h3>Recent deliveries</h3>
        <button type="button" class="quiet" disabled={props.reading.busy.value} onClick={props.onRefresh}>
          Read again<span class="visually-hidden"> the deliveries to {props.url}</span>
        </button>
      </div>
      <Problem action={props.reading} />
      {!list ? (
        <p class="empty">Loading…</p>
      ) : list.length === 0 ? (
        <p class="empty">Nothing was sent to this endpoint yet.</p>
      ) : (
        <ul class="delivery-list">
          {list.map((delivery) => (
            <li key={delivery.id} class={`delivery-row delivery-${delivery.status}`} data-delivery={delivery.id}>
              <code class="delivery-event">{delivery.event_type}</code>
              <span class="delivery-status">{STATUS_WORDS[delivery.status]}</span>
              <span class="meta delivery-detail">{detailText(delivery)}</span>
              <time class="meta" dateTime={delivery.created_at} title={momentOf(delivery.created_at)}>
                {whenText(delivery.created_at)}
              </time>
              {delivery.status === 'failed' && (
                <button type="button" disabled={props.busy} onClick={() => void props.onRetry(delivery)}>
                  Retry<span class="visually-hidden"> the {delivery.event_type} delivery</span>
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
  const attempts = `${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`;
  const answer =
    delivery.last_status_code !== null
      ? `, answered ${delivery.last_status_code}`
      : delivery.last_error
        ? `, ${delivery.last_error}`
        : '';
  const next =
    delivery.status === 'pending' && delivery.next_attempt_at && delivery.attempts > 0
      ? `; next at ${timeOf(delivery.next_attempt_at)}`
      : '';
  return `${attempts}${answer}${next}`;
}

/** How long ago `iso` was, said as people say it ("3 min ago"), with the date and time past a day. */
function whenText(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 0) return momentOf(iso);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return momentOf(iso);
}
