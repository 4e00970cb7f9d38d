/**
 * A local stand-in for Better BibTeX's JSON-RPC endpoint in a running Zotero (node:http on 127.0.0.1, port 0).
 *
 * Speaks: POST {base} with a JSON-RPC 2.0 request {jsonrpc:"2.0", method, params (positional array), id}; replies
 * HTTP 200 with {jsonrpc:"2.0", id, result} or {jsonrpc:"2.0", id, error:{code, message}}, as Better BibTeX
 * does. Methods: `api.ready` → {zotero, betterbibtex} versions; `item.search` (params [terms]) → CSL-JSON-like
 * items with `citekey`, matching the terms against title, authors and key (case-insensitive substring);
 * `item.export` (params [citekeys, translator]) → the BibTeX text of those keys, or -32603 for an unknown key.
 * Modes, per test: 'ready'; 'old' (a Better BibTeX without item.search/item.export: -32601 "method not
 * found"); 'starting' (Zotero not ready yet: -32603 on every call); 'not-json' (an HTTP 200 with an HTML body,
 * as another local service on the port would answer). A non-JSON request body gets -32700, a non-POST 405.
 *
 * NOT covered: Better BibTeX's other methods (collection.scanAUX, item.citationkey, item.attachments, …), its
 * named-parameter form, batch requests, `libraryID` arguments, translators other than BibTeX (any translator
 * name gets BibTeX), the CAYW endpoint, Zotero's connector endpoints on the same port, and real search syntax
 * (Zotero's quick search matches more fields). Zotero answers only on loopback, as this does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BbtStandinItem {
  citekey: string;
  title: string;
  authors: Array<{ family: string; given: string }>;
  year: number;
  bibtex: string;
}

export type BbtMode = 'ready' | 'old' | 'starting' | 'not-json';

export interface BbtStandin {
  url: string;
  mode: BbtMode;
  calls: Array<{ method: string; params: unknown }>;
  close(): Promise<void>;
}

export async function startBbtStandin(items: BbtStandinItem[]): Promise<BbtStandin> {
  const state: BbtStandin = { url: '', mode: 'ready', calls: [], close: async () => {} };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const reply = (payload: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST') return void res.writeHead(405).end();
      if (state.mode === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not Zotero</html>');
      let rpc: { jsonrpc?: string; method?: string; params?: unknown[]; id?: number };
      try {
        rpc = JSON.parse(body);
      } catch {
        return reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      state.calls.push({ method: String(rpc.method), params: rpc.params });
      const error = (code: number, message: string) => reply({ jsonrpc: '2.0', id: rpc.id, error: { code, message } });
      if (state.mode === 'starting') return error(-32603, 'Zotero not ready');
      const params = Array.isArray(rpc.params) ? rpc.params : [];
      switch (rpc.method) {
        case 'api.ready':
          return reply({ jsonrpc: '2.0', id: rpc.id, result: { zotero: '7.0.11', betterbibtex: '7.0.5' } });
        case 'item.search': {
          if (state.mode === 'old') return error(-32601, 'Method not found');
          const terms = String(params[0] ?? '').toLowerCase();
          const hits = items.filter((i) =>
            [i.title, i.citekey, ...i.authors.map((a) => a.family)].some((v) => v.toLowerCase().includes(terms)),
          );
          return reply({
            jsonrpc: '2.0',
            id: rpc.id,
            result: hits.map((i) => ({
              id: `http://zotero.org/users/local/x/items/${i.citekey}`,
              type: 'article-journal',
              title: i.title,
              author: i.authors,
              issued: { 'date-parts': [[i.year]] },
              citekey: i.citekey,
            })),
          });
        }
        case 'item.export': {
          if (state.mode === 'old') return error(-32601, 'Method not found');
          const keys = Array.isArray(params[0]) ? (params[0] as string[]) : [];
          const found = keys.map((k) => items.find((i) => i.citekey === k));
          if (found.some((f) => !f)) return error(-32603, `${keys.filter((_, n) => !found[n]).join(', ')} not found`);
          return reply({ jsonrpc: '2.0', id: rpc.id, result: found.map((f) => f!.bibtex).join('\n\n') + '\n' });
        }
        default:
          return error(-32601, 'Method not found');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/better-bibtex/json-rpc`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
