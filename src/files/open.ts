import type { Config } from '../config';
import { localFileStore } from './local-store';
import { s3FileStore } from './s3-store';
import type { FileStore } from './store';

/** What picks and opens the store; plain data, so the export worker thread opens its own alike. */
export type FileStoreSettings = Pick<Config, 'filesDir' | 'filesUrl' | 's3'>;

/** The bucket of `FILES_URL` when set, else the folder `FILES_DIR`. */
export async function openFileStore(settings: FileStoreSettings): Promise<FileStore> {
  return settings.filesUrl ? s3FileStore(settings.filesUrl, settings.s3) : localFileStore(settings.filesDir);
}
