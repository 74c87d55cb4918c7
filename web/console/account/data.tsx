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
import { t } from '../i18n';
import { pageIntl } from '../../shared/i18n';

/** The file's name: the one the service gives, else one with the day in it. */
function fileNameOr(given: string | null): string {
  return given ?? `account-export-${new Date().toISOString().slice(0, 10)}.zip`;
}

/** "820 bytes", "12 kB", "1.3 MB", as `Intl` writes them in the console's language. */
function size(bytes: number): string {
  const unit = (value: number, unit: string, options: Intl.NumberFormatOptions = {}) =>
    new Intl.NumberFormat(pageIntl(), { style: 'unit', unit, ...options }).format(value);
  if (bytes < 1024) return unit(bytes, 'byte', { unitDisplay: 'long' });
  if (bytes < 1024 * 1024) return unit(Math.ceil(bytes / 1024), 'kilobyte');
  return unit(bytes / 1024 / 1024, 'megabyte', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
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
      <p>{t('console.account.data.text')}</p>
      <div class="save-row">
        <button type="button" class="primary" disabled={action.busy.value} onClick={() => void download()}>
          {t('console.account.data.download')}
        </button>
        <span role="status" class="done">
          {action.busy.value
            ? t('console.account.data.gathering')
            : file.value
              ? t('console.account.data.on_its_way')
              : ''}
        </span>
      </div>
      {file.value && (
        <p>
          <a ref={link} href={file.value.url} download={file.value.name} class="account-download">
            {t('console.account.data.save_again', { name: file.value.name, size: size(file.value.bytes) })}
          </a>
        </p>
      )}
      <Problem action={action} />
    </>
  );
}
