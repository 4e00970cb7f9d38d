// The network layer of the web sources: one polite HTTP client and a resumable download cache.
export { HttpClient, HttpError, USER_AGENT_BASE, type HostRule, type HttpClientOptions, type HttpResponse, type RequestOptions } from './http.js';
export { download, fileSha256, type DownloadOptions, type DownloadResult } from './download.js';
export { retryAfterMs } from './retry-after.js';
export { isRetryableStatus, backoffMs, retryWaitMs, type Backoff } from './retry.js';
