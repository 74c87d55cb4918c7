import { startBenchServer } from './_server';
const server = await startBenchServer(process.env.ENTRY ? { entry: process.env.ENTRY } : {});
const { execSync } = await import('node:child_process');
console.log(execSync(`curl -si ${server.url}/bench/hello`).toString());
await server.stop();
