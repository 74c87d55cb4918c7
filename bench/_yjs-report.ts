/**
 * What the yjs bench (bench/yjs.ts) prints: each history's figures as it is measured, then one line
 * per history against the target of 100 ms.
 */
import { BOARD, CARDS, CLIENTS, DRAG_STEPS, UPDATES, type Workload } from './_yjs-document';

const TARGET_MS = 100;

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** REST reads and first syncs timed on the document not loaded (medians). */
export interface ColdFigures {
  canvas: number;
  cards: number;
  readsLoaded: boolean;
  firstSync: number;
  syncBytes: number;
  loadedSync: number;
}

/** Everything measured on one history. */
export interface Figures {
  generateMs: number;
  ingestMs: number;
  /** Updates stored after the snapshot when ingest ended. */
  stored: number;
  snapshotBytes: number;
  placements: number;
  /** Whether the compacted and uncompacted documents hold the same placements. */
  same: boolean;
  compacted: number;
  compactedStorage: number;
  baseline: number;
  baselineStorage: number;
  cold: ColdFigures;
  /** First sync with the stored updates merged, not loaded (median). */
  withUpdates: number;
}

/** The history, its ingest, and the loads after compaction and uncompacted. */
function printLoads(workload: Workload, f: Figures) {
  console.log(
    `\n${workload}: ${CARDS} cards, ${UPDATES} updates (${workload === 'drags' ? `${CLIENTS} clients, drags of ${DRAG_STEPS} steps` : 'one random card per update'})`,
  );
  console.log(`  history made by the clients in ${ms(f.generateMs)}`);
  console.log(
    `  ingest through /v1/sync: ${(UPDATES / (f.ingestMs / 1000)).toFixed(0)} updates/s stored (${ms(f.ingestMs)}); stored updates left: ${f.stored}`,
  );
  console.log(
    `  snapshot: ${(f.snapshotBytes / 1024).toFixed(0)} KiB; placements loaded: ${f.placements}; same content both ways: ${f.same}`,
  );
  console.log(
    `  load after compaction: ${ms(f.compacted)} (storage + Yjs only: ${ms(f.compactedStorage)})  target < ${TARGET_MS} ms`,
  );
  console.log(`  load uncompacted:      ${ms(f.baseline)} (storage + Yjs only: ${ms(f.baselineStorage)})`);
  console.log(`  ratio uncompacted / compacted: ${(f.baseline / f.compacted).toFixed(1)}×`);
}

/** What should not wait for the load, timed with the document not loaded. */
function printCold(f: Figures) {
  const { cold } = f;
  console.log(`  document not loaded (each against the load after compaction above, ${ms(f.compacted)}):`);
  console.log(
    `    REST GET …/canvas (${BOARD.zones.length} zones): ${ms(cold.canvas)}; GET …/cards (${CARDS} cards): ${ms(cold.cards)}; document loaded by them: ${cold.readsLoaded}  target < ${TARGET_MS} ms`,
  );
  console.log(
    `    new client's first sync (connect → step 2, ${(cold.syncBytes / 1024).toFixed(0)} KiB): ${ms(cold.firstSync)}  target < ${TARGET_MS} ms`,
  );
  console.log(`    the same client, document already loaded: ${ms(cold.loadedSync)}`);
  console.log(
    `    first sync with the ${f.stored} updates stored after the snapshot, not loaded (after ingest): ${ms(f.withUpdates)}`,
  );
}

/** One history's figures, as soon as it is measured. */
export function printWorkload(workload: Workload, figures: Figures) {
  printLoads(workload, figures);
  printCold(figures);
}

/** The figures each history is held to. */
export interface Verdicts {
  load: number;
  read: number;
  firstSync: number;
}

const verdict = (t: number) => `${ms(t)} ${t < TARGET_MS ? '(meets' : '(misses'} the ${TARGET_MS} ms target)`;

/** One line per history: its load, slower REST read and first sync against the target. */
export function printSummary(results: Array<[Workload, Verdicts]>) {
  console.log('');
  for (const [workload, r] of results) {
    console.log(
      `${workload}: load ${verdict(r.load)}; slower REST read, not loaded, ${verdict(r.read)}; first sync, not loaded, ${verdict(r.firstSync)}`,
    );
  }
}
