/**
 * The clients of the yjs bench (bench/yjs.ts): a bare y-websocket connection syncing from an empty
 * document, and the client process that times REST reads and first syncs. That process is this file
 * run as a child of the bench (`ClientProcess`), since the server loads the document right after
 * answering, which would hold back a client on its event loop; it does what the bench asks over IPC
 * and answers with the time it took.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as sync from 'y-protocols/sync';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import type { CollabEngine } from '../src/collab/engine';

export const syncUrlOf = (serverUrl: string, workshopId: string, token: string) =>
  `${serverUrl.replace(/^http/, 'ws')}/v1/sync/${workshopId}?token=${token}`;

/**
 * A bare y-websocket connection with an empty document: resolves once the server's step 2 (the
 * whole document) arrived, with its update and the message's size.
 */
export async function syncFromEmpty(syncUrl: string): Promise<{ ws: WebSocket; initial: Uint8Array; bytes: number }> {
  const ws = new WebSocket(syncUrl);
  const answer = await new Promise<{ initial: Uint8Array; bytes: number }>((resolve, reject) => {
    ws.on('error', reject);
    ws.once('close', (code) => reject(new Error(`closed with ${code} before step 2`)));
    ws.on('open', () => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      sync.writeSyncStep1(encoder, new Y.Doc());
      ws.send(encoding.toUint8Array(encoder));
    });
    ws.on('message', (data: Buffer) => {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      if (decoding.readVarUint(decoder) !== 0 || decoding.readVarUint(decoder) !== sync.messageYjsSyncStep2) return;
      resolve({ initial: decoding.readVarUint8Array(decoder), bytes: data.byteLength });
    });
  });
  return { ws, ...answer };
}

type ClientTask = { kind: 'get'; url: string; token: string } | { kind: 'sync'; url: string } | { kind: 'close' };

/** This file run as `client`: does what the bench asks over IPC and answers with the time it took. */
export class ClientProcess {
  private readonly child: ChildProcess = fork(fileURLToPath(import.meta.url), ['client'], {
    execArgv: ['--import', 'tsx'],
  });

  ask(task: ClientTask): Promise<{ ms: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the bench client exited with ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (answer: { ms: number; bytes: number } | { error: string }) => {
        this.child.off('exit', onExit);
        if ('error' in answer) reject(new Error(answer.error));
        else resolve(answer);
      });
      this.child.send(task);
    });
  }

  stop() {
    this.child.kill();
  }
}

/**
 * A new client's first sync on the document not loaded; the connection stays open until the
 * server has loaded the document after answering, then is closed.
 */
export async function firstSync(engine: CollabEngine, client: ClientProcess, workshopId: string, syncUrl: string) {
  await engine.unloadNow(workshopId, { compact: false });
  const answer = await client.ask({ kind: 'sync', url: syncUrl });
  while (!engine.loadedDocuments().includes(workshopId)) await new Promise((resolve) => setTimeout(resolve, 5));
  await client.ask({ kind: 'close' });
  return answer;
}

/** The client side: a REST read, or a bare y-websocket client with an empty document syncing. */
function serveAsClient() {
  let open: WebSocket | undefined;
  const handle = async (task: ClientTask): Promise<{ ms: number; bytes: number }> => {
    switch (task.kind) {
      case 'get': {
        const started = performance.now();
        const res = await fetch(task.url, { headers: { authorization: `Bearer ${task.token}` } });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET ${task.url} → ${res.status}`);
        return { ms: performance.now() - started, bytes: body.byteLength };
      }
      case 'sync': {
        const started = performance.now();
        const { ws, bytes } = await syncFromEmpty(task.url);
        open = ws;
        return { ms: performance.now() - started, bytes };
      }
      case 'close': {
        const ws = open;
        open = undefined;
        if (ws && ws.readyState !== WebSocket.CLOSED) {
          ws.removeAllListeners('close');
          await new Promise((resolve) => {
            ws.once('close', resolve);
            ws.close();
          });
        }
        return { ms: 0, bytes: 0 };
      }
    }
  };
  process.on('message', (task: ClientTask) => {
    handle(task).then(
      (answer) => process.send!(answer),
      (err: Error) => process.send!({ error: err.message }),
    );
  });
}

// Run as the bench's child (not imported by it): serve it.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === 'client')
  serveAsClient();
