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
import { t } from '../i18n';

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
      <p class="hint">{t('console.organization.webhooks.intro')}</p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? t('console.loading') : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.organization.webhooks.none')}</p>
      ) : (
        <ul class="webhook-list">
          {list.map((webhook) => (
            <WebhookRow
              key={webhook.id}
              organizationId={organizationId}
              webhook={webhook}
              onChange={read}
              onDeleted={async () => {
                told.value = t('console.organization.webhooks.deleted', { url: webhook.url });
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
          title={t('console.organization.webhooks.made', { url: made.value.url })}
          secret={made.value.secret}
          hint={t('console.organization.webhooks.made_hint')}
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
        throw new InputProblem(t('console.organization.webhooks.choose_event'), 'events');
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
    <form class="form create-webhook" aria-label={t('console.organization.webhooks.form')} onSubmit={onSubmit(submit)}>
      <h3>{t('console.organization.webhooks.add')}</h3>
      <Field
        label={t('console.fields.url')}
        name="url"
        type="url"
        value={url}
        action={creating}
        required
        placeholder={t('console.organization.webhooks.url_placeholder')}
        hint={t('console.organization.webhooks.url_hint')}
      />
      <Field
        label={t('console.organization.webhooks.description')}
        name="description"
        value={description}
        action={creating}
        maxLength={500}
      />
      <fieldset
        class="checks"
        aria-describedby={eventsHint}
        aria-invalid={creating.field.value === 'events' || undefined}
      >
        <legend>{t('console.fields.events')}</legend>
        <p id={eventsHint} class="hint">
          {t('console.organization.webhooks.events_hint')}
        </p>
        <label class="choice">
          <input type="checkbox" checked={every.value} onChange={(e) => (every.value = e.currentTarget.checked)} />
          <span>{t('console.organization.webhooks.every_event_later')}</span>
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
                  <code>{event}</code> <span class="meta">{t(words)}</span>
                </span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <SubmitRow action={creating} label={t('console.organization.webhooks.add_submit')} status="" />
    </form>
  );
}
