// A client for Better BibTeX's JSON-RPC endpoint (Zotero must be running with the Better BibTeX plugin):
// live citation keys (`item.search`) and BibTeX as Better BibTeX exports it (`item.export`). Optional: Corpus
// Lens reads the Zotero database itself; this only adds what the running Zotero knows best.
export const DEFAULT_BBT_URL = 'http://127.0.0.1:23119/better-bibtex/json-rpc';

export class BetterBibtexError extends Error {
  constructor(
    message: string,
    readonly code: number | 'unreachable' | 'timeout' | 'http' | 'protocol',
  ) {
    super(message);
  }
}

export interface BbtSearchItem {
  citekey: string;
  title: string | null;
  /** The rest of the CSL-JSON item Better BibTeX returns. */
  [field: string]: unknown;
}

export interface BetterBibtexOptions {
  baseUrl?: string;
  /** Per request (default 10 s): a Zotero that hangs must not hang the editor. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class BetterBibtex {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  private nextId = 1;

  constructor(options: BetterBibtexOptions = {}) {
    this.baseUrl = options.baseUrl || DEFAULT_BBT_URL;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Zotero's and Better BibTeX's versions once Zotero has started. */
  async ready(signal?: AbortSignal): Promise<{ zotero?: string; betterbibtex?: string }> {
    return (await this.call('api.ready', [], signal)) as { zotero?: string; betterbibtex?: string };
  }

  /** Items matching the terms, each with its citation key. */
  async search(terms: string, signal?: AbortSignal): Promise<BbtSearchItem[]> {
    const result = await this.call('item.search', [terms], signal);
    if (!Array.isArray(result))
      throw new BetterBibtexError('Better BibTeX answered item.search with something other than a list', 'protocol');
    return result.map((r: Record<string, unknown>) => ({
      ...r,
      citekey: String(r.citekey ?? r['citation-key'] ?? r.citationKey ?? ''),
      title: typeof r.title === 'string' ? r.title : null,
    }));
  }

  /** The entries for these keys in the given translator's format (BibTeX by default). */
  async export(citekeys: string[], translator = 'Better BibTeX', signal?: AbortSignal): Promise<string> {
    const result = await this.call('item.export', [citekeys, translator], signal);
    // Older Better BibTeX answered [status, contentType, body]; current versions the text itself.
    if (typeof result === 'string') return result;
    if (Array.isArray(result) && typeof result[2] === 'string') return result[2];
    throw new BetterBibtexError('Better BibTeX answered item.export with no text', 'protocol');
  }

  async call(method: string, params: unknown[], signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await this.fetchFn(this.baseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method, params, id: this.nextId++ }),
        signal: combined,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      if (timeout.aborted)
        throw new BetterBibtexError(`Zotero did not answer within ${this.timeoutMs / 1000} s at ${this.baseUrl}`, 'timeout');
      throw new BetterBibtexError(
        `Zotero is not running (nothing answers at ${this.baseUrl}); start Zotero with Better BibTeX, or let Corpus Lens read the Zotero data directory`,
        'unreachable',
      );
    }
    const text = await res.text();
    let body: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new BetterBibtexError(
        `${this.baseUrl} answered HTTP ${res.status} with no JSON-RPC reply: is Better BibTeX installed in Zotero?`,
        'http',
      );
    }
    if (body.error) throw rpcError(method, body.error);
    if (!res.ok) throw new BetterBibtexError(`${this.baseUrl} answered HTTP ${res.status}`, 'http');
    return body.result;
  }
}

function rpcError(method: string, error: { code?: number; message?: string }): BetterBibtexError {
  const detail = error.message ? ` (${error.message})` : '';
  if (error.code === -32601)
    return new BetterBibtexError(
      `Better BibTeX has no method ${method}: it is too old for Corpus Lens; update Better BibTeX in Zotero${detail}`,
      -32601,
    );
  if (error.code === -32603)
    return new BetterBibtexError(`Zotero is not ready yet (still starting, or busy); try again in a moment${detail}`, -32603);
  return new BetterBibtexError(
    `Better BibTeX ${method} failed with JSON-RPC error ${error.code ?? '?'}${detail}`,
    error.code ?? 'protocol',
  );
}
