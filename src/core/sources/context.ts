// One configuration and one HTTP client for a run over the web sources: defaults, then what the caller gives
// (settings, CLI flags, environment); each source's hosts get their spacing (arXiv 3 s, one connection).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HttpClient, type HttpClientOptions } from '../net/http.js';
import { DEFAULT_BUDGETS, DEFAULT_INTERVALS, DEFAULT_URLS, type SourceContext, type SourcesConfig } from './types.js';

export function sourcesConfig(given: Partial<SourcesConfig> = {}): SourcesConfig {
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined && v !== '')) as Partial<SourcesConfig>;
  const config: SourcesConfig = {
    ...DEFAULT_URLS,
    ...DEFAULT_INTERVALS,
    ...DEFAULT_BUDGETS,
    openLicenseOnly: false,
    cacheDir: join(homedir(), '.cache', 'corpus-lens', 'downloads'),
    ...defined,
  };
  for (const k of ['maxEprintBytes', 'maxPdfBytes'] as const) {
    if (!Number.isFinite(config[k]) || config[k] <= 0) throw new Error(`${k}: '${config[k]}' is not a positive number of bytes`);
  }
  for (const k of ['arxivApiUrl', 'arxivUrl', 's2Url', 'openalexUrl'] as const) {
    try {
      const u = new URL(config[k]);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new Error(`${k}: '${config[k]}' is not an http(s) URL`);
    }
    config[k] = config[k].replace(/\/+$/, '');
  }
  return config;
}

/** The context for a run: the client spaces requests per host as each source asks. */
export function sourceContext(config: SourcesConfig, options: { signal?: AbortSignal; http?: HttpClientOptions } = {}): SourceContext {
  const http = new HttpClient({ contact: config.contact, ...options.http });
  const rules: [string, number][] = [
    [config.arxivApiUrl, config.arxivIntervalMs],
    [config.arxivUrl, config.arxivIntervalMs],
    [config.s2Url, config.s2IntervalMs],
    [config.openalexUrl, config.openalexIntervalMs],
  ];
  // The largest interval wins where two sources share a host (a mirror or a test's stand-in serving several).
  const byHost = new Map<string, number>();
  for (const [url, ms] of rules) {
    const host = new URL(url).host.toLowerCase();
    byHost.set(host, Math.max(byHost.get(host) ?? 0, ms));
  }
  for (const [host, ms] of byHost) http.setHostRule(host, { minIntervalMs: ms });
  return { http, config, signal: options.signal };
}
