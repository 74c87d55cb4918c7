/*
 * The Webhooks section (docs/integrations.md#webhooks): the organization's endpoints, each with
 * its recent deliveries and its actions (webhook.tsx); and registering one (URL, events, a
 * description), whose signing secret is shown once with a copy button. What is typed to register
 * one is kept for this tab until it is registered (kept.ts).
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId } from 'preact/hooks';
import { api, InputProblem } from '../api';
import { Field, onSubmit, Problem, SubmitRow, useAction } from '../forms';
import { keptKey, useKeptForm } from '../kept';
import { SecretOnce } from '../secret-once';
import { EVENTS, type Webhook, type WebhookEvent } from './types';
import { WebhookRow } from './webhook';

export function Webhooks({ organizationId }: { organizationId: string }) {
  const webhooks = useSignal<Webhook[] | null>(null);
  const load = useAction();
  const told = useSignal('');
  const made = useSignal<{ url: string; secret: string } | null>(null);
  const read = () =>
    load.run(async () => {
      webhooks.value = await api.get('/v1/organizations/{id}/webhooks', { params: { path: { id: organizationId } } });
    });
  useEffect(() => {
    void read();
  }, [organizationId]);

  const list = webhooks.value;
  return (
    <>
      <p class="hint">
        Endpoints receive the organization’s events as they happen, signed to the Standard Webhooks specification; a
        failed delivery is tried again for about a day.
      </p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">This organization has no webhook endpoints.</p>
      ) : (
        <ul class="webhook-list">
          {list.map((webhook) => (
            <WebhookRow
              key={webhook.id}
              organizationId={organizationId}
              webhook={webhook}
              onChange={read}
              onDeleted={async () => {
                told.value = `The endpoint ${webhook.url} is deleted: nothing more is sent there.`;
                await read();
              }}
            />
          ))}
        </ul>
      )}
      <p role="status" class="done webhook-said">
        {told.value}
      </p>
      {made.value && (
        <SecretOnce
          title={`The signing secret of ${made.value.url}. It is shown this once: copy it now.`}
          secret={made.value.secret}
          hint="The receiver checks each delivery’s signature with it. A lost secret cannot be shown again: rotate it for a new one."
          onDone={() => (made.value = null)}
        />
      )}
      <CreateWebhook
        organizationId={organizationId}
        onCreated={async (url, secret) => {
          told.value = '';
          made.value = { url, secret };
          await read();
        }}
      />
    </>
  );
}

/** Registers an endpoint: its URL, the events it takes (every one, or some), a description. */
function CreateWebhook(props: { organizationId: string; onCreated: (url: string, secret: string) => Promise<void> }) {
  const form = useKeptForm(keptKey('webhook', props.organizationId), {
    description: '',
    every: true,
    events: [] as WebhookEvent[],
  });
  const { description, every, events } = form.fields;
  // Not kept: many endpoints' URLs carry their secret.
  const url = useSignal('');
  const creating = useAction();
  const eventsHint = useId();
  const submit = () =>
    creating.run(async () => {
      if (!every.value && events.value.length === 0)
        throw new InputProblem('Choose one event at least, or every event.', 'events');
      const made = await api.post('/v1/organizations/{id}/webhooks', {
        params: { path: { id: props.organizationId } },
        body: { url: url.value.trim(), events: every.value ? ['*'] : events.value, description: description.value },
      });
      form.clear();
      url.value = '';
      await props.onCreated(made.url, made.secret);
    });
  const toggle = (event: WebhookEvent, on: boolean) =>
    (events.value = on ? [...events.value, event] : events.value.filter((kept) => kept !== event));
  return (
    <form class="form create-webhook" aria-label="Add a webhook endpoint" onSubmit={onSubmit(submit)}>
      <h3>Add an endpoint</h3>
      <Field
        label="URL"
        name="url"
        type="url"
        value={url}
        action={creating}
        required
        placeholder="https://example.com/hooks"
        hint="An http(s) address the service can reach; deliveries are POSTed to it."
      />
      <Field label="Description (optional)" name="description" value={description} action={creating} maxLength={500} />
      <fieldset
        class="checks"
        aria-describedby={eventsHint}
        aria-invalid={creating.field.value === 'events' || undefined}
      >
        <legend>Events</legend>
        <p id={eventsHint} class="hint">
          Which events it receives. A test ping can be sent to any endpoint.
        </p>
        <label class="choice">
          <input type="checkbox" checked={every.value} onChange={(e) => (every.value = e.currentTarget.checked)} />
          <span>Every event, including those added later</span>
        </label>
        {!every.value && (
          <div class="check-grid">
            {EVENTS.map(([event, words]) => (
              <label key={event} class="choice">
                <input
                  type="checkbox"
                  checked={events.value.includes(event)}
                  onChange={(e) => toggle(event, e.currentTarget.checked)}
                />
                <span>
                  <code>{event}</code> <span class="meta">when {words}</span>
                </span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <SubmitRow action={creating} label="Add endpoint" status="" />
    </form>
  );
}
