import autocannon from 'autocannon';
import { startBenchServer } from './_server';
const server = await startBenchServer(process.env.ENTRY ? { entry: process.env.ENTRY } : {});
const url = `${server.url}${process.argv[2] ?? '/bench/hello'}`;
await autocannon({ url, connections: 50, duration: 2 });
const r = await autocannon({ url, connections: 50, duration: Number(process.env.D ?? 8) });
console.log(r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
await server.stop();
