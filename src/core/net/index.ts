// The network layer of the web sources: one polite HTTP client and a resumable download cache.
export { HttpClient, HttpError } from './http.js';
export { download } from './download.js';
export { systemLookup, type HostLookup } from './address.js';
