/**
 * What the client SDK weighs in a browser app: each entry point bundled with everything it
 * imports (socket.io-client, Yjs, ...), minified by esbuild and gzipped, against its budget.
 * `npm run bench -- sdk-size`; `test/sdk-size.test.ts` holds the budgets.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '../client-sdk/src');

export interface BundleSize {
  name: string;
  minified: number;
  gzipped: number;
  /** Gzipped bytes allowed, or null for a size only reported. */
  budget: number | null;
}

/** What an app imports, per measured bundle. */
const BUNDLES: Array<{ name: string; imports: string[]; budget: number | null }> = [
  { name: 'REST (workshop-sdk)', imports: ['index.ts'], budget: 10 * 1024 },
  { name: 'REST + live (workshop-sdk/live)', imports: ['index.ts', 'live.ts'], budget: 35 * 1024 },
  { name: 'canvas (workshop-sdk/canvas)', imports: ['canvas.ts'], budget: null },
  { name: 'REST + live + canvas', imports: ['index.ts', 'live.ts', 'canvas.ts'], budget: null },
];

export async function measureSdkSizes(): Promise<BundleSize[]> {
  const sizes: BundleSize[] = [];
  for (const bundle of BUNDLES) {
    const result = await build({
      stdin: {
        contents: bundle.imports.map((file) => `export * from './${file}';`).join('\n'),
        resolveDir: sdk,
        loader: 'ts',
      },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // A browser bundle must not take in Node's WebSocket (socket.io-client's browser build leaves it out).
    const nodeOnly = Object.keys(result.metafile.inputs).filter((input) =>
      /node_modules\/(ws|xmlhttprequest-ssl)\//.test(input),
    );
    if (nodeOnly.length > 0) throw new Error(`${bundle.name} bundles Node-only modules: ${nodeOnly.join(', ')}`);
    const code = result.outputFiles[0]!.contents;
    sizes.push({
      name: bundle.name,
      minified: code.byteLength,
      gzipped: gzipSync(code).byteLength,
      budget: bundle.budget,
    });
  }
  return sizes;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const size of await measureSdkSizes()) {
    const verdict =
      size.budget === null
        ? '(reported)'
        : `budget ${kb(size.budget)}: ${size.gzipped <= size.budget ? 'within' : 'OVER'} (${((size.gzipped / size.budget) * 100).toFixed(0)}%)`;
    console.log(
      `${size.name.padEnd(34)} min ${kb(size.minified).padStart(9)}  min+gzip ${kb(size.gzipped).padStart(8)}  ${verdict}`,
    );
  }
}
