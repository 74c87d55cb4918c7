import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The README and the pages under docs/ link to each other by heading, and code comments cite
 * those headings (`docs/realtime.md#sequence-and-resume`). A renamed heading or a moved page
 * breaks them silently; this reads every relative link and every citation and checks that the
 * file exists and, when an anchor is given, that the file has that heading.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const CODE_FOLDERS = ['src', 'web', 'client-sdk/src', 'test', 'bench', 'scripts'];

/** Lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6} +(.+?) *#*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsIn(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) anchorCache.set(file, (anchors = anchorsOf(readFileSync(file, 'utf8'))));
  return anchors;
}

/** Why `target` (a path relative to `from`, with an optional #anchor) does not resolve, or null. */
function brokenTarget(from: string, target: string): string | null {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? from : resolve(dirname(from), decodeURI(path));
  if (!existsSync(file)) return `no file ${relative(ROOT, file)}`;
  if (anchor === undefined) return null;
  if (!file.endsWith('.md')) return `an anchor into ${relative(ROOT, file)}, which is not a page`;
  return anchorsIn(file).has(anchor) ? null : `no heading #${anchor} in ${relative(ROOT, file)}`;
}

/** Every relative link of a page (inline code left out), with its line number. */
function linksOf(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  let fenced = false;
  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || line.startsWith('```')) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line: index + 1, target });
    }
  });
  return links;
}

function codeFiles(folder: string): string[] {
  const full = join(ROOT, folder);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(full, name);
    if (statSync(path).isDirectory()) return codeFiles(relative(ROOT, path));
    return /\.(ts|mts|mjs|js|css)$/.test(name) ? [path] : [];
  });
}

describe('documentation links', () => {
  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf(
      '# Title\n## Socket.IO\n## Health, readiness and stopping\n### `--private` runs\n## Notes\n## Notes\n```\n# not a heading\n```',
    );
    expect([...anchors]).toEqual([
      'title',
      'socketio',
      'health-readiness-and-stopping',
      '--private-runs',
      'notes',
      'notes-1',
    ]);
  });

  it('resolve, in the README and every page under docs/', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const file = join(ROOT, page);
      for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
        const why = brokenTarget(file, target);
        if (why) broken.push(`${page}:${line} → ${target}: ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('resolve, where code comments cite a page', () => {
    const broken: string[] = [];
    let citations = 0;
    for (const file of CODE_FOLDERS.flatMap(codeFiles)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const match of line.matchAll(/\bdocs\/([a-z0-9-]+\.md)(#[a-z0-9_-]+)?/g)) {
            citations += 1;
            const why = brokenTarget(join(ROOT, 'README.md'), `docs/${match[1]}${match[2] ?? ''}`);
            if (why) broken.push(`${relative(ROOT, file)}:${index + 1} → ${match[0]}: ${why}`);
          }
        });
    }
    expect(broken).toEqual([]);
    expect(citations).toBeGreaterThan(0);
  });
});
