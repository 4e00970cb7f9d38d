// Fresh PGlite databases for tests without paying initdb each time (~4.5 s idle, 10+ s on a busy machine):
// the first call creates one, dumps its data dir into a template tarball in the OS temp folder, and every later
// call (in any test file) restores that template (~1–2 s). The template is keyed by the PGlite package version.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { projectRoot } from './eval.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };

function templatePath(): string {
  const pkg = join(projectRoot, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  const version = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version : 'unknown';
  return join(tmpdir(), `corpus-lens-test-pglite-${version}-vector.tar`);
}

/** A fresh PGlite with pgvector (CREATE EXTENSION already run), in memory or in `dir`. */
export async function freshPGlite(dir?: string): Promise<PGlite> {
  const [{ PGlite }, { vector }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector')]);
  const path = templatePath();
  if (dir) mkdirSync(dirname(dir), { recursive: true });
  if (existsSync(path)) {
    try {
      const loadDataDir = new Blob([readFileSync(path)]);
      return await PGlite.create(dir ?? 'memory://', { extensions: { vector }, loadDataDir });
    } catch {
      // a damaged template: fall through and rebuild it
    }
  }
  const db = await PGlite.create(dir ?? 'memory://', { extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  if (!dir) {
    const dump = await db.dumpDataDir('none');
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, path);
  }
  return db;
}
