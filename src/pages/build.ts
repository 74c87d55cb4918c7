import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appMessages } from '../i18n/messages';
import { pageLanguages, pageMessagesModule } from '../i18n/page-messages';

/*
 * The browser pages' files: each page's script (its `app.ts` with the SDK's entry points and
 * their dependencies: socket.io-client, and for the screen Yjs and y-websocket) and its
 * stylesheet, minified, each named by a hash of its content so browsers may keep them for good.
 *
 * The pages' code lives apart from the server, in `web/` (type-checked with the DOM library by
 * `web/tsconfig.json`, whose paths also name the SDK's sources for esbuild); the server never
 * imports it, only bundles it here. Development builds the files in memory on first use;
 * `npm run build` writes them to `dist/<page>/` so production serves them without esbuild, a
 * devDependency the image does not hold.
 *
 * A page whose words are in the catalogs (`messages`: its namespaces) also gets one file per
 * language, `messages-<tag>-<hash>.js`, with only that page's messages, parsed at build: the
 * page loads the one of its language, and the browser never needs the ICU parser, which the
 * bundle leaves out (docs/i18n.md#in-the-pages).
 */

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
/** The file beside each page's built ones that names them (`{script, stylesheet, messages}`). */
export const MANIFEST = 'manifest.json';

/** The pages served from browser bundles: the facilitator console, the live screen and the participant page. */
export const PAGES: Record<'console' | 'screen' | 'participant', PageSources> = {
  console: {
    script: join(WEB, 'console', 'app.tsx'),
    stylesheet: join(WEB, 'console', 'console.css'),
    messages: ['common', 'console'],
  },
  screen: {
    script: join(WEB, 'screen', 'app.ts'),
    stylesheet: join(WEB, 'screen', 'screen.css'),
    messages: ['common', 'screen'],
  },
  participant: {
    script: join(WEB, 'participant', 'app.ts'),
    stylesheet: join(WEB, 'participant', 'participant.css'),
    messages: ['common', 'participant'],
  },
};
interface PageSources {
  script: string;
  stylesheet: string;
  /** The catalogs' namespaces the page shows, once its words have moved there. */
  messages?: readonly string[];
}
export type PageName = keyof typeof PAGES;
export const PAGE_NAMES = Object.keys(PAGES) as PageName[];

/** One page's built browser files, by their hashed names. */
export interface PageAssets {
  /** The page script's file name (`app-<hash>.js`). */
  script: string;
  /** The stylesheet's file name (`<page>-<hash>.css`). */
  stylesheet: string;
  /** Each language's messages file (`messages-<tag>-<hash>.js`) by tag: none for a page not in the catalogs yet. */
  messages: Record<string, string>;
  files: Map<string, Uint8Array<ArrayBuffer>>;
}

/** One file per language with the page's messages, named by a hash of its content as esbuild names the others. */
function messageFiles(namespaces: readonly string[] | undefined, files: Map<string, Uint8Array<ArrayBuffer>>) {
  const messages: Record<string, string> = {};
  if (!namespaces) return messages;
  const catalogs = appMessages();
  for (const tag of pageLanguages(catalogs)) {
    const contents = new TextEncoder().encode(pageMessagesModule(catalogs, tag, namespaces));
    const hash = createHash('sha256').update(contents).digest('hex').slice(0, 10).toUpperCase();
    messages[tag] = `messages-${tag}-${hash}.js`;
    files.set(messages[tag], contents);
  }
  return messages;
}

/** Bundles one page's script and stylesheet in memory. Needs esbuild (a devDependency). */
export async function buildPageAssets(page: PageName): Promise<PageAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { app: PAGES[page].script, [page]: PAGES[page].stylesheet },
    outdir: '/out',
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    // The messages come parsed (`messageFiles`): FormatJS's build without its parser (docs/i18n.md#in-the-pages).
    alias: { '@formatjs/icu-messageformat-parser': '@formatjs/icu-messageformat-parser/no-parser.js' },
    write: false,
    logLevel: 'warning',
  });
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  let script = '';
  let stylesheet = '';
  for (const file of result.outputFiles) {
    const name = file.path.slice('/out/'.length);
    files.set(name, new Uint8Array(file.contents));
    if (name.endsWith('.js')) script = name;
    if (name.endsWith('.css')) stylesheet = name;
  }
  return { script, stylesheet, messages: messageFiles(PAGES[page].messages, files), files };
}

/**
 * Writes every page's built files and a manifest naming them into `dir/<page>/` (the production
 * build: `dist/screen/`, `dist/participant/`).
 */
export async function writePageAssets(dir: string): Promise<Record<PageName, PageAssets>> {
  const built = await Promise.all(PAGE_NAMES.map(async (page) => [page, await buildPageAssets(page)] as const));
  for (const [page, assets] of built) {
    const out = join(dir, page);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const [name, contents] of assets.files) writeFileSync(join(out, name), contents);
    const { script, stylesheet, messages } = assets;
    writeFileSync(join(out, MANIFEST), JSON.stringify({ script, stylesheet, messages }));
  }
  return Object.fromEntries(built) as Record<PageName, PageAssets>;
}
