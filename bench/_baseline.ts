import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const lockfile = (dir: string) => readFileSync(join(dir, 'package-lock.json'), 'utf8');

/**
 * A checkout of another commit of this repository (a git worktree under `.bench/`), to measure it
 * beside the working tree in the same run. With the same lockfile it runs on this checkout's
 * installed packages; with another one (a dependency added or removed since), on its own, installed
 * from its lockfile (from npm's cache when it can; once, kept with the checkout). Returns the
 * checkout's folder.
 */
export function baselineCheckout(rev: string): string {
  const commit = execFileSync('git', ['rev-parse', '--short', rev], { cwd: root, encoding: 'utf8' }).trim();
  const dir = join(root, '.bench', `baseline-${commit}`);
  if (!existsSync(join(dir, 'package.json'))) {
    mkdirSync(dirname(dir), { recursive: true });
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, commit], { cwd: root, stdio: 'ignore' });
  }
  const modules = join(dir, 'node_modules');
  const sameLock = lockfile(dir) === lockfile(root);
  const linked = existsSync(modules) && lstatSync(modules).isSymbolicLink();
  if (!sameLock && linked) rmSync(modules);
  if (sameLock && !existsSync(modules)) symlinkSync(join(root, 'node_modules'), modules, 'dir');
  if (!sameLock && !existsSync(modules)) {
    console.log(`installing the packages of ${commit} (its lockfile differs from this checkout's)…`);
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  return dir;
}
