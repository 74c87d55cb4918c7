/**
 * Loaded into a measured server process (`--import`): answers `{type: 'memory'}` over IPC with the
 * process's memory after a full garbage collection (needs `--expose-gc`), so per-client figures
 * are taken where the sockets live.
 */
const collect = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'memory') return;
  for (let i = 0; i < 3; i++) collect?.();
  const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
  process.send?.({ type: 'memory', rss, heapTotal, heapUsed, external });
});
