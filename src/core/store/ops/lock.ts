// One process at a time on an embedded corpus. PGlite is a single-user PostgreSQL: two processes on one folder
// (two `ingest` runs, a `query` while a `review` runs, two VS Code windows on the shared globalStorage corpus)
// corrupt it for good ("cache lookup failed for function", "missing chunk number 0 for toast value"). So opening
// a corpus folder takes a lock file in it, created with O_EXCL and holding the owner's pid, host and command line.
// A second opener finds a live owner and gets CorpusInUseError naming it (or waits for it, `waitMs`); a lock whose
// process is gone (killed, crashed, machine rebooted) is stale and taken over — PGlite replays its WAL on open.
// A pid alone does not name a process for long (after a reboot or in a container the lock's pid may be init or a
// shell): the lock records the owner's start time too (Linux: boot id + start ticks from /proc), and a live pid with
// another start time, or one that is not a Node/VS Code process, is not the owner.
// A VS Code window's corpus process holds its corpus for as long as the window lives, and code-server keeps a closed
// tab's extension host alive for hours (for reconnection): a reloaded tab, a second window or a CLI run would find
// the corpus taken by a window nobody looks at. Such an owner records `handover` and gives the corpus up when asked
// (SIGUSR2) as soon as it has no request in flight; it takes the corpus back the same way when next asked to serve.
// Only owners that say so are signalled: SIGUSR2 ends a Node process that does not handle it.
import { hostname } from 'node:os';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sleep } from '../../abort.js';
import { StoreError } from '../types.js';

export const LOCK_FILE = 'corpus-lens.lock';

/** Who holds a corpus. */
export interface LockOwner {
  pid: number;
  host: string;
  /** What the owner is, e.g. "corpus-lens ingest" or "VS Code corpus process (extension host 1234)". */
  command: string;
  since: string;
  /** When the owner process started, `BOOT_ID:TICKS` (Linux; absent elsewhere and in older locks). */
  started?: string;
  /** The owner gives the corpus up when another opener sends it SIGUSR2 (a VS Code corpus process). */
  handover?: boolean;
}

/** How long an opener waits for an owner that was asked to hand the corpus over (it finishes what it is doing). */
export const HANDOVER_WAIT_MS = 15_000;

/** The corpus is open in another live process. */
export class CorpusInUseError extends StoreError {
  constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {
    // Killing is advised only for a process known to be the owner (same host, same start time).
    const verified = owner.host === hostname() && !!owner.started && owner.started === processStarted(owner.pid);
    super(
      `the corpus at ${dir} is in use by process ${owner.pid} (${owner.command}${owner.host !== hostname() ? ` on ${owner.host}` : ''}, since ${owner.since}): ` +
        `an embedded corpus allows one process at a time — wait for it to finish (or close that window) and run again` +
        `${verified ? `, or stop it (kill ${owner.pid})` : ''}; if no such process runs, delete ${join(dir, LOCK_FILE)}`,
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
  /** This process gives the corpus up on SIGUSR2 (it must handle the signal): recorded in the lock for other openers. */
  handover?: boolean;
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

/** Reads a /proc file, or null (not Linux, no such process, no permission). */
function proc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * When process `pid` started, as `BOOT_ID:TICKS` (field 22 of /proc/PID/stat, clock ticks since boot; with the boot
 * id it names one process for good): null where /proc does not tell.
 */
export function processStarted(pid: number): string | null {
  const stat = proc(`/proc/${pid}/stat`);
  const boot = proc('/proc/sys/kernel/random/boot_id');
  if (!stat || !boot) return null;
  // "PID (COMMAND) STATE PPID …": the command may hold spaces and parentheses; fields restart after the last ')'.
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return ticks ? `${boot.trim()}:${ticks}` : null;
}

/** Whether process `pid` could be a Corpus Lens one (Node, or VS Code's Electron); true when /proc does not tell. */
function mayBeCorpusLens(pid: number): boolean {
  const cmdline = proc(`/proc/${pid}/cmdline`);
  if (cmdline === null) return true;
  return /node|electron|code|corpus-lens|tsx/i.test(cmdline.replace(/\0/g, ' '));
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

/**
 * The lock's owner is gone: its pid runs no process, or a process started at another time (the pid was reused),
 * or, for a lock that records no start time, one that is no Node or VS Code process. Another host's lock is never
 * judged (its pids mean nothing here).
 */
function stale(owner: LockOwner | null): boolean {
  if (!owner) return true;
  if (owner.host !== hostname()) return false;
  if (!isAlive(owner.pid)) return true;
  const started = processStarted(owner.pid);
  if (owner.started && started) return owner.started !== started;
  return !mayBeCorpusLens(owner.pid);
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
  const started = processStarted(process.pid);
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    command: options.command ?? describeProcess(),
    since: new Date().toISOString(),
    ...(started ? { started } : {}),
    ...(options.handover ? { handover: true } : {}),
  };
  let deadline = Date.now() + (options.waitMs ?? 0);
  let asked = false;
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
      if (!asked && owner && askHandover(owner)) {
        asked = true;
        deadline = Math.max(deadline, Date.now() + HANDOVER_WAIT_MS);
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
 * Asks a live owner that accepts it to hand the corpus over. Only an owner verified on this machine (same host, same
 * start time) is signalled, never a pid that might now name another process; never on Windows (no SIGUSR2).
 */
function askHandover(owner: LockOwner): boolean {
  if (!owner.handover || process.platform === 'win32' || owner.host !== hostname() || owner.pid === process.pid) return false;
  if (!owner.started || owner.started !== processStarted(owner.pid)) return false;
  try {
    process.kill(owner.pid, 'SIGUSR2');
    return true;
  } catch {
    return false;
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
