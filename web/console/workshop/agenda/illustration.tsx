/*
 * A step's illustration: an image uploaded (`POST /v1/uploads`) and then set on the step, shown
 * left of or above its instructions; it can be replaced, placed and removed. The service takes
 * PNG, JPEG, GIF, WebP, AVIF and TIFF images (docs/api.md#files) and says so when refused.
 */
import { useId } from 'preact/hooks';
import type { Step } from 'workshop-sdk';
import { api } from '../../api';
import { ConfirmButton, Problem, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { Choose } from './choose';
import { useLiveRead } from '../live-read';

const IMAGES = 'image/png,image/jpeg,image/gif,image/webp,image/avif,image/tiff';
type Align = 'left' | 'above';
const ALIGNS: Array<[Align, string]> = [
  ['above', 'Above the instructions'],
  ['left', 'Left of the instructions'],
];

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
    <section class="illustration" aria-label="Illustration">
      <h3>Illustration</h3>
      {shown === undefined ? (
        <p class="empty">{illustration.problem.value || 'Loading…'}</p>
      ) : shown === null ? (
        <p class="empty">This step has no illustration.</p>
      ) : (
        <div class="illustration-shown">
          <img
            src={shown.resize_url.replace('{{width}}', '480').replace('{{height}}', '270')}
            alt={`Illustration of ${step.name}: ${shown.name}`}
          />
          <Choose
            inline
            label="Where it shows"
            options={ALIGNS}
            value={shown.align}
            onChange={(align) => void place(align)}
          />
          <ConfirmButton
            label="Remove the illustration"
            class="danger"
            question="Remove the illustration?"
            confirm="Remove"
            onConfirm={remove}
          />
        </div>
      )}
      <div class="field">
        <label for={fileId}>{shown ? 'Replace it with an image' : 'Add an image'}</label>
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
        <p class="hint">PNG, JPEG, GIF, WebP, AVIF or TIFF.</p>
      </div>
      {action.busy.value && <p role="status">Saving…</p>}
      <Problem action={action} />
    </section>
  );
}
