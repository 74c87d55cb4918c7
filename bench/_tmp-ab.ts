// A/B: req/s and server CPU µs per request on the hello route, baseline vs this checkout, alternating.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { startBenchServer } from './_server';
const entries: Array<[string, string | undefined]> = [['base', '/work/main/.bench/baseline-c8c4e68/bench/server.ts'], ['cur', undefined]];
const path = process.argv[2] ?? '/bench/hello';
const servers = [];
for (const [name, entry] of entries) servers.push({ name, s: await startBenchServer(entry ? { entry } : {}) });
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };
const D = Number(process.env.D ?? 4), R = Number(process.env.R ?? 3);
const res: Record<string, number[][]> = {};
for (const { s } of servers) await autocannon({ url: s.url + path, connections: 50, duration: 2 });
for (let r = 0; r < R; r++) for (const { name, s } of servers) {
  const c0 = cpu(s.process.pid!);
  const out = await autocannon({ url: s.url + path, connections: 50, duration: D });
  const us = (cpu(s.process.pid!) - c0) / out.requests.total;
  (res[name] ??= []).push([out.requests.average, us]);
  console.log(name, out.requests.average.toFixed(0), us.toFixed(2), 'µs/req');
}
const med = (v: number[]) => v.sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)]!;
for (const [n, rows] of Object.entries(res)) console.log('median', n, med(rows.map((x) => x[0])).toFixed(0), 'req/s', med(rows.map((x) => x[1])).toFixed(2), 'µs/req');
for (const { s } of servers) await s.stop();
