/** Builds the server and its pages into `outdir` (scripts/build-server.mjs); each page's script and stylesheet. */
export function buildServer(outdir: string): Promise<Record<string, { script: string; stylesheet: string }>>;
