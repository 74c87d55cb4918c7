/*
 * The Account page's data export (`GET /v1/user/me/export`, docs/api.md#your-data-export): a ZIP
 * of the profile, organizations, sessions, tokens and notifications, the personal workshops as
 * native files, and what the person wrote in other workshops. The route wants the token, which a
 * plain link cannot send, so the page fetches the file (`api.download`) and hands it to the browser
 * through a download link on an object URL.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api';
import { Problem, useAction } from '../forms';

/** The file's name: the one the service gives, else one with the day in it. */
function fileNameOr(given: string | null): string {
  return given ?? `account-export-${new Date().toISOString().slice(0, 10)}.zip`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function YourData() {
  const file = useSignal<{ url: string; name: string; bytes: number } | null>(null);
  const link = useRef<HTMLAnchorElement>(null);
  const action = useAction();
  // The object URL holds the file in memory: let it go with the page, or when a newer one replaces it.
  useEffect(() => () => file.value && URL.revokeObjectURL(file.value.url), []);
  useEffect(() => {
    if (file.value) link.current?.click();
  }, [file.value]);
  const download = () =>
    action.run(async () => {
      const { blob, filename } = await api.download('/v1/user/me/export');
      if (file.value) URL.revokeObjectURL(file.value.url);
      file.value = { url: URL.createObjectURL(blob), name: fileNameOr(filename), bytes: blob.size };
    });
  return (
    <>
      <p>
        One ZIP file with your profile, organizations and roles, sessions, API tokens (without their secrets) and
        notifications; each of your own workshops as a file the service can open again; and every card, comment, vote,
        rating, item and attachment name you wrote in other people’s workshops.
      </p>
      <div class="save-row">
        <button type="button" class="primary" disabled={action.busy.value} onClick={() => void download()}>
          Download your data
        </button>
        <span role="status" class="done">
          {action.busy.value ? 'Gathering your data…' : file.value ? 'The file is on its way to your downloads.' : ''}
        </span>
      </div>
      {file.value && (
        <p>
          <a ref={link} href={file.value.url} download={file.value.name} class="account-download">
            Save {file.value.name} again ({size(file.value.bytes)})
          </a>
        </p>
      )}
      <Problem action={action} />
    </>
  );
}
