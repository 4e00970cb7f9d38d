// A real PostgreSQL wire-protocol server for the `pg` store tests: PGlite (with pgvector) served on 127.0.0.1 by
// @electric-sql/pglite-socket. It accepts any user/password (no authentication) and one connection at a time.
import type { AddressInfo, Server } from 'node:net';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { freshPGlite } from './db-pglite.js';

export interface PgServer {
  db: PGlite;
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startPgServer(db?: PGlite): Promise<PgServer> {
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const owned = !db;
  const database = db ?? (await freshPGlite());
  const server = new PGLiteSocketServer({ db: database, host: '127.0.0.1', port: 0 });
  await server.start();
  const port = ((server as unknown as { server: Server }).server.address() as AddressInfo).port;
  return {
    db: database,
    port,
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      if (owned) await database.close();
    },
  };
}
