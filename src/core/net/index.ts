// The network layer of the web sources: one polite HTTP client and a resumable download cache.
export { BodyTooLargeError, HttpClient, HttpError, megabytes, USER_AGENT_BASE, type HostRule, type HttpClientOptions, type HttpResponse, type RequestOptions } from './http.js';
export { download, fileSha256, type DownloadOptions, type DownloadResult } from './download.js';
export { retryAfterMs } from './retry-after.js';
export { isRetryableStatus, backoffMs, retryWaitMs, type Backoff } from './retry.js';
export { isInternalAddress, isInternalHost, systemLookup, type HostLookup } from './address.js';
