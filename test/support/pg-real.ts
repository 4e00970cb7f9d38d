// A throwaway real PostgreSQL 15 server with pgvector for the store tests: initdb into a temp folder, started on
// its own loopback port (its unix socket in that folder too), trust authentication, fsync off. As root it runs as
// the `postgres` user through runuser (PostgreSQL refuses to run as root). Stopped (immediate) and its folder
// removed by stop(), and also when the test process exits some other way (a failing before hook, an uncaught
// error, SIGINT/SIGTERM/SIGHUP), so no cluster outlives its test file. ../shared/notes/postgres.md has the manual steps.
//
// Where the binaries or pgvector are absent, `realPgSkip` gives the reason to skip — except under CI=true,
// where the tests must run (and then fail on start).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PG_BIN = process.env.CORPUS_LENS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

function pgSharedir(): string | null {
  const r = spawnSync(join(PG_BIN, 'pg_config'), ['--sharedir'], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim();
  // Without the server headers there is no pg_config; Debian's layout then.
  return existsSync('/usr/share/postgresql/15') ? '/usr/share/postgresql/15' : null;
}

/** Why the real-server tests cannot run here (false: they can, or CI=true where they must). */
export function realPgSkip(): string | false {
  if (process.env.CI === 'true') return false;
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_ctl'))) {
    return `no PostgreSQL 15 binaries in ${PG_BIN} (apt-get install postgresql-15; .ci/run does)`;
  }
  const share = pgSharedir();
  if (!share || !existsSync(join(share, 'extension', 'vector.control'))) {
    return 'pgvector is not installed for PostgreSQL 15 (build it from ../shared/vendor/pgvector-0.8.6.tar.gz; .ci/run does)';
  }
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return 'running as root without a `postgres` user to own the cluster';
  }
  return false;
}

export interface RealPg {
  port: number;
  /** The cluster's data directory (pg_hba.conf for tests that require passwords). */
  dataDir: string;
  /** postgres://postgres@127.0.0.1:port/<database> (trust authentication: any password is accepted). */
  url(database?: string): string;
  /** A new empty database with pgvector created in it; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL as the superuser in `database` (one connection, closed after). */
  sql(sql: string, database?: string): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the cluster owner (the `postgres` user when we are root). */
function runPg(bin: string, args: string[], shmMb?: number): void {
  let [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args]] : [join(PG_BIN, bin), args];
  if (shmMb) {
    // The server's own /dev/shm, as a container gives it: a private mount namespace that the daemonised postmaster
    // keeps; stop() signals it by its PID, which needs no namespace.
    argv = [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount -t tmpfs -o size=${shmMb}m tmpfs /dev/shm && exec "$@"`,
      'sh',
      cmd,
      ...argv,
    ];
    cmd = 'unshare';
  }
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

/**
 * Why a server with a small /dev/shm cannot be started here (false: it can): that takes root, to mount a tmpfs in a
 * private mount namespace. CI runs as root (it installs packages with apt-get), so there it must work; a non-root
 * machine skips with the reason even under CI=true, as nothing could give it the mount.
 */
export function smallShmSkip(): string | false {
  if (!asRoot) return 'a server with its own small /dev/shm needs root (unshare -m and a tmpfs mount)';
  if (process.env.CI === 'true') return false;
  return spawnSync('unshare', ['-m', 'true']).status === 0 ? false : 'unshare -m is not permitted here';
}

/**
 * Starts a fresh cluster; always pair with stop() (an exit handler also stops it). `settings` are extra server
 * settings (`-c name=value`), e.g. the scale bench's lab-sized shared_buffers; `shmMb` gives the server a /dev/shm
 * of that size, as Docker's default 64 MB (needs root: smallShmSkip).
 */
export async function startRealPg(settings: Record<string, string> = {}, options: { shmMb?: number } = {}): Promise<RealPg> {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pg-'));
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const data = join(dir, 'data');
  let started = false;
  const cleanup = () => {
    if (started) {
      try {
        runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already down
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A test runner's timeout or ^C ends the process by a signal, which skips 'exit' handlers: stop the cluster,
  // then end as that signal would have.
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    process.kill(process.pid, signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forget = () => {
    process.removeListener('exit', cleanup);
    for (const sig of signals) process.removeListener(sig, onSignal);
  };
  process.once('exit', cleanup);
  for (const sig of signals) process.once(sig, onSignal);
  try {
    runPg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100${Object.entries(
        settings,
      )
        .map(([k, v]) => ` -c ${k}=${v}`)
        .join('')}`;
      try {
        started = true;
        runPg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', opts, 'start'], options.shmMb);
        break;
      } catch (err) {
        started = false;
        if (attempt >= 2) throw err; // the port was taken between probing and binding, thrice
      }
    }
    const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
    const sql = async (text: string, database = 'postgres') => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    };
    return {
      port,
      dataDir: data,
      url,
      sql,
      async createDatabase(name) {
        await sql(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
        await sql('CREATE EXTENSION IF NOT EXISTS vector', name);
        return url(name);
      },
      async stop() {
        forget();
        cleanup();
      },
    };
  } catch (err) {
    forget();
    const log = join(dir, 'log');
    const tail = existsSync(log) ? execFileSync('tail', ['-n', '5', log], { encoding: 'utf8' }) : '';
    cleanup();
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not start a PostgreSQL test cluster: ${(err as Error).message}\n${stderr}${tail}`, { cause: err });
  }
}
