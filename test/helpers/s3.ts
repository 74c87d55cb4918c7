import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import type { Config, S3Settings } from '../../src/config';

/*
 * A real S3-compatible server for tests: s3rver, in this process, on a loopback port the OS picks,
 * keeping its buckets in a temporary folder. Requests are signed and checked with its one built-in
 * account (S3RVER / S3RVER), so the service's client runs exactly as it does against a bucket.
 */

export interface TestS3 {
  endpoint: string;
  bucket: string;
  settings: S3Settings;
  /** The settings an app storing its files under `prefix` of the bucket takes (`FILES_URL` and the AWS variables). */
  filesConfig(prefix?: string): Pick<Config, 'filesUrl' | 's3'>;
  /** Every key in the bucket under `prefix`, seen from outside the service. */
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Buckets need 3 or more characters; this one is created as the server starts. */
export async function startS3(bucket = 'workshop-files'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'workshops-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = { endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({
    ...settings,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    settings,
    filesConfig: (prefix = '') => ({ filesUrl: `s3://${bucket}${prefix ? `/${prefix}` : ''}`, s3: settings }),
    async keys(prefix = '') {
      // v1 listings, paged by marker: s3rver cannot make v2's continuation tokens on this Node.
      const keys: string[] = [];
      for (let marker: string | undefined; ;) {
        const page = await client.send(new ListObjectsCommand({ Bucket: bucket, Prefix: prefix, Marker: marker }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        marker = keys.at(-1);
        if (!page.IsTruncated) return keys.sort();
      }
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Starts s3rver before this file's or describe's tests and stops it after them. */
export function useS3(bucket?: string): () => TestS3 {
  let s3: TestS3 | undefined;
  beforeAll(async () => {
    s3 = await startS3(bucket);
  });
  afterAll(async () => {
    await s3?.close();
  });
  return () => {
    if (!s3) throw new Error('s3rver is started in beforeAll: use it inside a test or hook');
    return s3;
  };
}
