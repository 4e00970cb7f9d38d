// One process at a time on an embedded corpus. PGlite is a single-user PostgreSQL: two processes on one folder
// (two `ingest` runs, a `query` while a `review` runs, two VS Code windows on the shared globalStorage corpus)
// corrupt it for good ("cache lookup failed for function", "missing chunk number 0 for toast value"). So opening
// a corpus folder takes a lock file in it, created with O_EXCL and holding the owner's pid, host and command line.
// A second opener finds a live owner and gets CorpusInUseError naming it (or waits for it, `waitMs`); a lock whose
// process is gone (killed, crashed, machine rebooted) is stale and taken over — PGlite replays its WAL on open.
import { hostname } from 'node:os';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sleep } from '../abort.js';
import { StoreError } from './types.js';

export const LOCK_FILE = 'corpus-lens.lock';

/** Who holds a corpus. */
export interface LockOwner {
  pid: number;
  host: string;
  /** What the owner is, e.g. "corpus-lens ingest" or "VS Code corpus process (extension host 1234)". */
  command: string;
  since: string;
}

/** The corpus is open in another live process. */
export class CorpusInUseError extends StoreError {
  constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `the corpus at ${dir} is in use by process ${owner.pid} (${owner.command}${owner.host !== hostname() ? ` on ${owner.host}` : ''}, since ${owner.since}): ` +
        `an embedded corpus allows one process at a time — wait for it to finish (or close that window) and run again, ` +
        `or stop it (kill ${owner.pid}); if no such process runs, delete ${join(dir, LOCK_FILE)}`,
    );
    this.name = 'CorpusInUseError';
  }
}

export interface CorpusLock {
  readonly file: string;
  release(): void;
}

export interface LockOptions {
  /** Keep trying this long while another live process holds the corpus (default 0: fail at once). */
  waitMs?: number;
  signal?: AbortSignal;
  /** What this process is, for the message another opener sees (default: from process.argv). */
  command?: string;
}

/** "corpus-lens ingest", "store-host.js", …: what a user recognises in a process list. */
export function describeProcess(argv: readonly string[] = process.argv): string {
  const script = argv[1] ? basename(argv[1]) : basename(argv[0] ?? 'node');
  if (script === 'cli.js' || script === 'main.ts') return ['corpus-lens', argv[2]].filter(Boolean).join(' ');
  return script;
}

/** Whether `pid` is a running process on this machine (EPERM: it runs, as another user). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | null | 'missing' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  try {
    const o = JSON.parse(text) as LockOwner;
    return Number.isInteger(o.pid) ? o : null;
  } catch {
    return null; // not a lock this code wrote (locks are written whole, see createComplete): nobody's
  }
}

/** The lock's owner is gone: another host's lock is never judged (its pids mean nothing here). */
function stale(owner: LockOwner | null): boolean {
  if (!owner) return true;
  if (owner.host !== hostname()) return false;
  return !isAlive(owner.pid);
}

/** Held locks of this process, released if it exits without closing (Ctrl-C, process.exit). */
const held = new Set<string>();
process.once('exit', () => {
  for (const f of held) {
    try {
      unlinkSync(f);
    } catch {
      /* already gone */
    }
  }
});

/**
 * Creates `file` holding `text`, or fails with EEXIST: written to a private name first and hard-linked into place
 * (link is atomic and never replaces), so no opener ever reads a half-written lock.
 */
function createComplete(file: string, text: string): void {
  const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 });
  try {
    linkSync(tmp, file);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
  }
}

/** Takes the lock of the corpus folder `dir` (which exists), or throws CorpusInUseError / a StoreError. */
export async function lockCorpus(dir: string, options: LockOptions = {}): Promise<CorpusLock> {
  const file = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), command: options.command ?? describeProcess(), since: new Date().toISOString() };
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    try {
      createComplete(file, JSON.stringify(me));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw fsProblem(dir, err);
      const owner = readOwner(file);
      if (owner === 'missing') continue; // released between our create and our read
      if (owner && owner.pid === process.pid && owner.host === me.host && held.has(file)) {
        throw new CorpusInUseError(dir, owner); // this process has it open already
      }
      if (stale(owner)) {
        takeOver(file, owner);
        continue;
      }
      if (Date.now() >= deadline) throw new CorpusInUseError(dir, owner!);
      await sleep(Math.min(250, Math.max(10, deadline - Date.now())), options.signal);
      continue;
    }
    held.add(file);
    let released = false;
    return {
      file,
      release() {
        if (released) return;
        released = true;
        held.delete(file);
        const owner = readOwner(file);
        if (owner && owner !== 'missing' && owner.pid === me.pid && owner.since === me.since) {
          try {
            unlinkSync(file);
          } catch {
            /* gone */
          }
        }
      },
    };
  }
}

/**
 * Removes a stale lock. Two openers may find the same stale lock: each renames it to a name of its own first (only
 * one rename succeeds) and checks that what it moved is the stale lock it judged, not a fresh one.
 */
function takeOver(file: string, judged: LockOwner | null): void {
  const aside = `${file}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else took it over
  }
  const moved = readOwner(aside);
  if (moved !== 'missing' && JSON.stringify(moved) !== JSON.stringify(judged)) {
    // A fresh lock (its owner took over between our read and our rename): put it back unless a newer one is there.
    try {
      linkSync(aside, file);
    } catch {
      /* a newer lock is in place */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* gone */
  }
}

/** A file-system error opening a corpus folder, as a sentence that names the problem and the fix. */
export function fsProblem(dir: string, err: unknown): StoreError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const what =
    code === 'EACCES' || code === 'EPERM'
      ? `no permission to write in the corpus folder ${dir}: give your user write access (or choose another --db folder)`
      : code === 'EROFS'
        ? `the corpus folder ${dir} is on a read-only file system: copy the corpus to a writable folder and use that`
        : code === 'ENOSPC' || code === 'EDQUOT'
          ? `the disk holding ${dir} is full: free some space and run again (the corpus is unchanged)`
          : code === 'ENOTDIR'
            ? `${dir} is not a folder: --db takes a corpus folder, a postgres:// URL or supabase:<url>`
            : `cannot use the corpus folder ${dir}: ${(err as Error)?.message ?? String(err)}`;
  return new StoreError(what, { cause: err });
}
