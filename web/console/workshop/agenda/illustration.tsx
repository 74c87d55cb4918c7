/*
 * A step's illustration: an image uploaded (`POST /v1/uploads`) and then set on the step, shown
 * left of or above its instructions; it can be replaced, placed and removed. The service takes
 * PNG, JPEG, GIF, WebP, AVIF and TIFF images (docs/api.md#files) and says so when refused.
 */
import { useId } from 'preact/hooks';
import type { Step } from 'workshop-sdk';
import { api } from '../../api';
import { ConfirmButton, Problem, useAction } from '../../forms';
import { t } from '../../i18n';
import type { WorkshopScope } from '../context';
import { Choose, said } from './choose';
import { useLiveRead } from '../live-read';

const IMAGES = 'image/png,image/jpeg,image/gif,image/webp,image/avif,image/tiff';
type Align = 'left' | 'above';
const ALIGNS = [
  ['above', 'console.agenda.illustration.above'],
  ['left', 'console.agenda.illustration.left'],
] as const satisfies ReadonlyArray<readonly [Align, string]>;

export function Illustration(props: { scope: WorkshopScope; step: Step }) {
  const { scope, step } = props;
  const path = { params: { path: { workshop_id: scope.id, step_id: step.id } } };
  const illustration = useLiveRead(
    scope,
    /Illustration/,
    () => api.get('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', path),
    null,
    () => scope.live.state.steps.find((each) => each.id === step.id)?.has_illustration ?? step.has_illustration,
  );
  const action = useAction();
  const fileId = useId();
  const shown = illustration.value.value;

  const upload = (file: File) =>
    action.run(async () => {
      const stored = await api.post('/v1/uploads', { body: { file } });
      const { key, container, url, mimetype } = stored;
      const made = await api.post('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
        ...path,
        body: { name: file.name, align: shown?.align ?? 'above', blob: { key, container, url, mimetype } },
      });
      // Shown at once: the live state learns that the step has one a moment later.
      illustration.set(made);
    });
  const place = (align: Align) =>
    action.run(async () => {
      illustration.set(
        await api.put('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', { ...path, body: { align } }),
      );
    });
  const remove = () =>
    action.run(async () => {
      await api.delete('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', path);
      illustration.set(null);
    });

  return (
    <section class="illustration" aria-label={t('console.agenda.illustration.title')}>
      <h3>{t('console.agenda.illustration.title')}</h3>
      {shown === undefined ? (
        <p class="empty">{illustration.problem.value || t('console.loading')}</p>
      ) : shown === null ? (
        <p class="empty">{t('console.agenda.illustration.none')}</p>
      ) : (
        <div class="illustration-shown">
          <img
            src={shown.resize_url.replace('{{width}}', '480').replace('{{height}}', '270')}
            alt={t('console.agenda.illustration.alt', { step: step.name, name: shown.name })}
          />
          <Choose
            inline
            label={t('console.agenda.illustration.where')}
            options={said(ALIGNS)}
            value={shown.align}
            onChange={(align) => void place(align)}
          />
          <ConfirmButton
            label={t('console.agenda.illustration.remove')}
            class="danger"
            question={t('console.agenda.illustration.remove_question')}
            confirm={t('console.common.remove')}
            onConfirm={remove}
          />
        </div>
      )}
      <div class="field">
        <label for={fileId}>
          {shown ? t('console.agenda.illustration.replace') : t('console.agenda.illustration.add')}
        </label>
        <input
          id={fileId}
          type="file"
          accept={IMAGES}
          disabled={action.busy.value}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) void upload(file);
          }}
        />
        <p class="hint">{t('console.agenda.illustration.formats')}</p>
      </div>
      {action.busy.value && <p role="status">{t('console.common.saving')}</p>}
      <Problem action={action} />
    </section>
  );
}
