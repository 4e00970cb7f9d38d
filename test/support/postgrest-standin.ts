// A local stand-in for Supabase's REST API (PostgREST behind the API gateway), for testing the REAL supabase-js
// client. It speaks the PostgREST wire format for exactly the calls Corpus Lens makes and runs them as SQL on
// a PGlite database or on a real PostgreSQL server (a `pg` pool: pgStandinDb), so the SQL functions Supabase runs
// are the ones tested:
//   POST /rest/v1/rpc/<fn>          JSON object of named arguments → SELECT * FROM fn(name => $n::argtype, …); JSON rows
//   GET|HEAD /rest/v1/<table>       select=a,b|*  col=eq.X  col=in.(a,"b,c")  col=is.null  gt/gte/lt/lte/neq  not.<op>
//                                   or=(and(col.eq.X,col.in.(1,2)),…)  order=col.asc|desc  limit  offset
//                                   Prefer: count=exact → Content-Range
//   POST /rest/v1/<table>           JSON array/object of rows; columns=…, on_conflict=…;
//                                   Prefer: resolution=ignore-duplicates|merge-duplicates, return=representation
//   PATCH /rest/v1/<table>          JSON object of columns; the GET filters; Prefer: return=representation
//   DELETE /rest/v1/<table>         the GET filters (col=in.(…) …); 204 without a body (no return=representation)
// Every request must carry `apikey: <key>` and `Authorization: Bearer <key>`; otherwise 401 with the gateway's
// body ({"message":"Invalid API key", …}). SQL errors answer 400 (409 for unique violations, 404 for a missing
// table or function) with PostgREST's {code, message, details, hint}.
//
// What it does NOT cover (differences from real Supabase/PostgREST):
// - no JWT verification, roles or row-level security: the key is compared as a string, and all requests run as
//   the database's connecting superuser; a service-role vs anon distinction does not exist (the anon role's
//   grants and policies are tested in SQL on the real server: test/integration/store-roles.test.ts);
// - no resource embedding (select=*,Source(*)), no JSON path selects, casts or aliases in select, no like /
//   ilike / fts / cs / cd operators, no nested or= inside and=() beyond what the parser below reads;
// - no GET /rpc calls (arguments in the query string), no scalar-function unwrapping, no `Accept:
//   application/vnd.pgrst.object` (single), CSV, or Prefer: tx=rollback, count=planned|estimated;
// - no schema cache (changes are visible at once; real PostgREST may answer 503 until it reloads);
// - no request size/URL length limits, no rate limiting, no HTTP/2, no Realtime, Storage or Auth endpoints;
// - function overloading is not resolved (the first function of that name is used); argument types come from
//   pg_proc, so a JSON array for a vector argument becomes '[…]' and for an array type a '{…}' literal.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in needs of a database: PGlite, or a pg Pool (pgStandinDb). */
export interface StandinDb {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * A pg pool on a real server that returns values as PostgREST's JSON does: bigint and numeric as JSON numbers
 * (pg returns them as strings by default). `end()` closes it.
 */
export async function pgStandinDb(url: string): Promise<StandinDb & { end(): Promise<void> }> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 || oid === 1700
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  return { query: (sql, params) => pool.query(sql, params as unknown[]), end: () => pool.end() };
}

export interface StandinRequest {
  method: string;
  path: string;
  search: string;
}

export interface PostgrestStandin {
  /** The project URL to give createClient (no /rest/v1). */
  url: string;
  key: string;
  /** Every request received (also the refused ones), in order. */
  requests: StandinRequest[];
  /** Answer the next requests with this fault instead (tests of error handling). */
  fault: { status: number; body: unknown } | null;
  stop(): Promise<void>;
}

type Row = Record<string, unknown>;

function ident(name: string): string {
  return `"${name.replace(/^"|"$/g, '').replace(/"/g, '""')}"`;
}

/** Splits on commas at depth 0, honouring double quotes and parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '\\' && i + 1 < s.length) {
        cur += c + s[++i];
        continue;
      }
      if (c === '"') quoted = false;
      cur += c;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur !== '' || out.length) out.push(cur);
  return out;
}

function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

function pgArray(values: readonly unknown[]): string {
  return `{${values
    .map((v) => (v == null ? 'NULL' : `"${(typeof v === 'object' ? JSON.stringify(v) : String(v)).replace(/["\\]/g, '\\$&')}"`))
    .join(',')}}`;
}

function jsonValue(v: unknown): unknown {
  return typeof v === 'bigint' ? Number(v) : v;
}

class QueryBuilder {
  params: unknown[] = [];
  constructor(private readonly types: Map<string, string>) {}

  param(v: unknown, type: string): string {
    this.params.push(v);
    return `$${this.params.length}::${type}`;
  }

  typeOf(col: string): string {
    const t = this.types.get(col);
    if (!t) throw new HttpError(400, { code: '42703', message: `column "${col}" does not exist`, details: null, hint: null });
    return t;
  }

  /** `col.op.value` (inside or=) or (col, `op.value`) from a query parameter. */
  condition(col: string, opValue: string): string {
    // `not.<op>.<value>`: the condition negated.
    if (opValue.startsWith('not.')) return `NOT (${this.condition(col, opValue.slice(4))})`;
    const dot = opValue.indexOf('.');
    const op = opValue.slice(0, dot);
    const raw = opValue.slice(dot + 1);
    const c = ident(col);
    const t = this.typeOf(col);
    const cmp: Record<string, string> = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };
    if (op in cmp) return `${c} ${cmp[op]} ${this.param(unquote(raw), t)}`;
    if (op === 'in') {
      const inner = raw.replace(/^\(/, '').replace(/\)$/, '');
      return `${c} = ANY (${this.param(pgArray(splitTop(inner).map(unquote)), `${t}[]`)})`;
    }
    if (op === 'is') {
      if (!/^(null|true|false)$/i.test(raw)) throw new HttpError(400, { code: 'PGRST100', message: `bad is value ${raw}` });
      return `${c} IS ${raw.toUpperCase()}`;
    }
    throw new HttpError(400, { code: 'PGRST100', message: `operator ${op} is not supported by the stand-in` });
  }

  /** A logic tree: `(a.eq.1,and(b.in.(1,2),c.eq.x))` joined with `joiner`. */
  logic(expr: string, joiner: 'AND' | 'OR'): string {
    const inner = expr.replace(/^\(/, '').replace(/\)$/, '');
    const parts = splitTop(inner).map((p) => {
      const m = /^(and|or)(\(.*\))$/s.exec(p);
      if (m) return `(${this.logic(m[2], m[1] === 'and' ? 'AND' : 'OR')})`;
      const dot = p.indexOf('.');
      return this.condition(p.slice(0, dot), p.slice(dot + 1));
    });
    return parts.length ? parts.join(` ${joiner} `) : 'TRUE';
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Row,
  ) {
    super(String(body.message));
  }
}

export async function startPostgrestStandin(db: StandinDb, options: { key: string }): Promise<PostgrestStandin> {
  const sql = async <T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> => (await db.query(text, params)) as { rows: T[] };

  const tableTypes = new Map<string, Map<string, string>>();
  const columnTypes = async (table: string): Promise<Map<string, string>> => {
    const cached = tableTypes.get(table);
    if (cached) return cached;
    const r = await sql<{ attname: string; t: string }>(
      `SELECT a.attname, format_type(a.atttypid, NULL) AS t FROM pg_attribute a
       WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      [ident(table)],
    );
    if (!r.rows.length) {
      throw new HttpError(404, {
        code: 'PGRST205',
        message: `Could not find the table 'public.${table}' in the schema cache`,
        details: null,
        hint: null,
      });
    }
    const m = new Map(r.rows.map((x) => [x.attname, x.t]));
    tableTypes.set(table, m);
    return m;
  };

  const state: PostgrestStandin = {
    url: '',
    key: options.key,
    requests: [],
    fault: null,
    stop: async () => undefined,
  };

  async function rpc(fn: string, args: Row): Promise<unknown> {
    const r = await sql<{ names: string[] | null; modes: string[] | null; types: string[] }>(
      `SELECT p.proargnames AS names, p.proargmodes::text[] AS modes,
         ARRAY(SELECT format_type(t, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, i) ORDER BY i) AS types
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE p.proname = $1 AND n.nspname = 'public' LIMIT 1`,
      [fn],
    );
    const def = r.rows[0];
    if (!def) {
      throw new HttpError(404, {
        code: 'PGRST202',
        message: `Could not find the function public.${fn} in the schema cache`,
        details: null,
        hint: null,
      });
    }
    const inNames = (def.names ?? []).filter((_, i) => !def.modes || ['i', 'b', 'v'].includes(def.modes[i]));
    const q = new QueryBuilder(new Map());
    const named: string[] = [];
    for (const [name, value] of Object.entries(args)) {
      const i = inNames.indexOf(name);
      if (i < 0) {
        throw new HttpError(404, {
          code: 'PGRST202',
          message: `Could not find the function public.${fn}(${Object.keys(args).join(', ')}) in the schema cache`,
          details: null,
          hint: null,
        });
      }
      const type = def.types[i];
      let v: unknown = value;
      if (v != null && Array.isArray(v)) v = /vector$/.test(type) ? `[${v.join(',')}]` : pgArray(v);
      else if (v != null && typeof v === 'object') v = JSON.stringify(v);
      else if (v != null) v = String(v);
      named.push(`${ident(name)} => ${q.param(v, type)}`);
    }
    const res = await sql<Row>(`SELECT * FROM ${ident(fn)}(${named.join(', ')})`, q.params);
    return res.rows;
  }

  async function select(table: string, search: URLSearchParams, countExact: boolean, head: boolean) {
    const types = await columnTypes(table);
    const q = new QueryBuilder(types);
    const sel = search.get('select') ?? '*';
    const cols =
      sel === '*'
        ? '*'
        : splitTop(sel)
            .map((c) => ident(c.trim()))
            .join(', ');
    const where: string[] = [];
    let order = '';
    let limit = '';
    let offset = '';
    for (const [k, v] of search) {
      if (k === 'select' || k === 'columns' || k === 'on_conflict') continue;
      if (k === 'order') {
        order = ` ORDER BY ${v
          .split(',')
          .map((o) => {
            const [c, dir] = o.split('.');
            return `${ident(c)} ${dir === 'desc' ? 'DESC' : 'ASC'}`;
          })
          .join(', ')}`;
      } else if (k === 'limit') limit = ` LIMIT ${Number(v)}`;
      else if (k === 'offset') offset = ` OFFSET ${Number(v)}`;
      else if (k === 'or' || k === 'and') where.push(`(${q.logic(v, k === 'or' ? 'OR' : 'AND')})`);
      else where.push(q.condition(k, v));
    }
    const w = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const rows = head ? [] : (await sql<Row>(`SELECT ${cols} FROM ${ident(table)}${w}${order}${limit}${offset}`, q.params)).rows;
    let total: number | undefined;
    if (countExact) {
      const c = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${ident(table)}${w}`, q.params);
      total = Number(c.rows[0].n);
    }
    return { rows, total };
  }

  async function remove(table: string, search: URLSearchParams) {
    const q = new QueryBuilder(await columnTypes(table));
    const where: string[] = [];
    for (const [k, v] of search) {
      if (k === 'or' || k === 'and') where.push(`(${q.logic(v, k === 'or' ? 'OR' : 'AND')})`);
      else where.push(q.condition(k, v));
    }
    await sql(`DELETE FROM ${ident(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, q.params);
  }

  async function update(table: string, search: URLSearchParams, body: unknown, prefer: string) {
    const types = await columnTypes(table);
    const q = new QueryBuilder(types);
    const cols = Object.keys(body as Row);
    for (const c of cols)
      if (!types.has(c))
        throw new HttpError(400, { code: 'PGRST204', message: `Could not find the '${c}' column of '${table}' in the schema cache` });
    const row = q.param(JSON.stringify(body), 'json');
    const where: string[] = [];
    for (const [k, v] of search) {
      if (k === 'select' || k === 'columns') continue;
      if (k === 'or' || k === 'and') where.push(`(${q.logic(v, k === 'or' ? 'OR' : 'AND')})`);
      else where.push(q.condition(k, v));
    }
    const { representation, returning } = returningOf(search, prefer);
    const list = cols.map(ident).join(', ');
    const res = await sql<Row>(
      `UPDATE ${ident(table)} SET (${list}) = (SELECT ${list} FROM json_populate_record(NULL::${ident(table)}, ${row}))${
        where.length ? ` WHERE ${where.join(' AND ')}` : ''
      }${returning}`,
      q.params,
    );
    return representation ? res.rows : null;
  }

  /** Prefer: return=representation asks for the written rows back, with the columns of `select`. */
  function returningOf(search: URLSearchParams, prefer: string): { representation: boolean; returning: string } {
    const representation = /return=representation/.test(prefer);
    const sel = search.get('select') ?? '*';
    const columns =
      sel === '*'
        ? '*'
        : splitTop(sel)
            .map((c) => ident(c.trim()))
            .join(', ');
    return { representation, returning: representation ? ` RETURNING ${columns}` : '' };
  }

  async function insert(table: string, search: URLSearchParams, body: unknown, prefer: string) {
    const types = await columnTypes(table);
    const rows = (Array.isArray(body) ? body : [body]) as Row[];
    const cols = search.get('columns')
      ? splitTop(search.get('columns')!).map((c) => unquote(c.trim()))
      : [...new Set(rows.flatMap((r) => Object.keys(r)))];
    for (const c of cols)
      if (!types.has(c))
        throw new HttpError(400, { code: 'PGRST204', message: `Could not find the '${c}' column of '${table}' in the schema cache` });
    const list = cols.map(ident).join(', ');
    let conflict = '';
    const target = search.get('on_conflict');
    if (/resolution=ignore-duplicates/.test(prefer))
      conflict = ` ON CONFLICT ${target ? `(${target.split(',').map(ident).join(', ')})` : ''} DO NOTHING`;
    else if (/resolution=merge-duplicates/.test(prefer) && target) {
      conflict = ` ON CONFLICT (${target.split(',').map(ident).join(', ')}) DO UPDATE SET ${cols.map((c) => `${ident(c)} = EXCLUDED.${ident(c)}`).join(', ')}`;
    }
    const { representation, returning } = returningOf(search, prefer);
    const res = await sql<Row>(
      `INSERT INTO ${ident(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, $1::json)${conflict}${returning}`,
      [JSON.stringify(rows)],
    );
    return representation ? res.rows : null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://standin');
    state.requests.push({ method: req.method ?? 'GET', path: u.pathname, search: u.search });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = body === undefined ? '' : JSON.stringify(body, (_k, v) => jsonValue(v));
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (state.fault) return send(state.fault.status, state.fault.body);
    const apikey = req.headers.apikey;
    const auth = req.headers.authorization;
    if (apikey !== options.key || (auth !== undefined && auth !== `Bearer ${options.key}`)) {
      return send(401, { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' });
    }
    const m = /^\/rest\/v1\/(rpc\/)?([^/]+)$/.exec(u.pathname);
    if (!m) return send(404, { code: 'PGRST125', message: `Invalid path specified in request URL`, details: null, hint: null });
    const name = decodeURIComponent(m[2]);
    const prefer = String(req.headers.prefer ?? '');
    try {
      if (m[1]) {
        if (req.method !== 'POST') return send(405, { message: 'the stand-in only supports POST /rpc' });
        const args = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Row) : {};
        return send(200, await rpc(name, args));
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        const countExact = /count=exact/.test(prefer);
        const { rows, total } = await select(name, u.searchParams, countExact, req.method === 'HEAD');
        const range = rows.length ? `0-${rows.length - 1}` : '*';
        return send(200, rows, { 'content-range': `${range}/${total ?? '*'}` });
      }
      if (req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const out = await insert(name, u.searchParams, body, prefer);
        return send(201, out ?? undefined);
      }
      if (req.method === 'PATCH') {
        const out = await update(name, u.searchParams, JSON.parse(Buffer.concat(chunks).toString('utf8')), prefer);
        if (out) return send(200, out);
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.method === 'DELETE') {
        await remove(name, u.searchParams);
        res.writeHead(204);
        res.end();
        return;
      }
      return send(405, { message: `method ${req.method} is not supported by the stand-in` });
    } catch (err) {
      if (err instanceof HttpError) return send(err.status, err.body);
      const e = err as { code?: string; message?: string; detail?: string; hint?: string };
      const status = e.code === '23505' ? 409 : e.code === '42P01' || e.code === '42883' ? 404 : 400;
      return send(status, { code: e.code ?? 'XX000', message: e.message ?? String(err), details: e.detail ?? null, hint: e.hint ?? null });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: String(err) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
