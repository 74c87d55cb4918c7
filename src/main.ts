import { loadConfig } from './config';
import { createDeps } from './create-deps';
import { createServer } from './server';

const config = loadConfig();
const deps = createDeps(config);
const server = await createServer(deps);
console.log(`workshop server listening on ${config.publicUrl} (port ${server.port}, database ${config.databasePath})`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing requests in flight, then closing the database`);
  const force = setTimeout(() => {
    console.error('shutdown took longer than 10 s; exiting');
    process.exit(1);
  }, 10_000);
  force.unref();
  await server.close();
  deps.database.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
