// One place that removes credentials from text before it reaches a message or a log line: the password of
// every URL's userinfo (postgres://user:pw@…, https://user:pw@…, supabase:https://user:pw@…), the values of
// query-string keys that carry secrets (?apikey=…, &token=…), and bare API-key shapes (sk-…, Bearer …, JWTs).
// Error messages quote their targets (`--db`, base URLs, PostgREST URLs) and are printed, logged and shown: every
// sink calls redactSecrets, and StoreError redacts its own message.

const MASK = '***';

/** Query-string and fragment keys whose values are credentials. */
const SECRET_KEY =
  /^(?:api[-_]?key|apikey|key|token|access[-_]?token|refresh[-_]?token|id[-_]?token|auth|authorization|password|passwd|pwd|secret|client[-_]?secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|session|sessionid|code)$/i;

/** A URL (any scheme://, plus the supabase: prefix) up to whitespace or a closing quote/bracket. */
const URL_IN_TEXT = /\b(?:supabase:)?[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

function redactUserinfo(url: string): string {
  // scheme://user:password@host → scheme://user:***@host (the user name helps tell corpora apart; the password goes).
  // A userinfo without ':' is a token in the user slot (https://TOKEN@host): masked whole.
  return url.replace(/^((?:supabase:)?[a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i, (_m, scheme: string, info: string) => {
    const colon = info.indexOf(':');
    if (colon < 0) return `${scheme}${info.length >= 20 ? MASK : info}@`;
    return `${scheme}${info.slice(0, colon)}:${MASK}@`;
  });
}

function redactParams(url: string): string {
  return url.replace(/([?&#;])([^=&#;\s]+)=([^&#;\s]*)/g, (m, sep: string, key: string, value: string) => {
    let name = key;
    try {
      name = decodeURIComponent(key);
    } catch {
      /* keep the raw key */
    }
    return SECRET_KEY.test(name) && value ? `${sep}${key}=${MASK}` : m;
  });
}

/** `url` with its credentials replaced by ***; anything that is not a URL is returned unchanged. */
export function redactUrl(url: string): string {
  return redactParams(redactUserinfo(url));
}

/** `text` with the credentials of every URL in it, and bare API keys/tokens, replaced by ***. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  return text
    .replace(URL_IN_TEXT, (u) => {
      // "at https://…?apikey=K: refused" — the sentence's punctuation is not part of the URL.
      const tail = /[:,.;)\]]+$/.exec(u)?.[0] ?? '';
      return redactUrl(u.slice(0, u.length - tail.length)) + tail;
    })
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`)
    .replace(/\bsk-[A-Za-z0-9_-]{12,}/g, `sk-${MASK}`)
    .replace(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, MASK)
    .replace(/\b(apikey|api_key|password|token)(\s*[=:]\s*)(?!\*\*\*)([^\s&,;'"]+)/gi, `$1$2${MASK}`);
}

/** An error's message (or the thrown value as text), redacted: what a CLI line, a log line or a notification shows. */
export function errorText(err: unknown): string {
  return redactSecrets(describeThrown(err));
}

/**
 * What went wrong, as a sentence, whatever was thrown: an Error's message (its cause's when it has none), a string,
 * an object's `message`, else its JSON — never "[object Object]".
 */
export function describeThrown(err: unknown): string {
  if (err instanceof Error) {
    if (err.message) return err.message;
    if (err.cause !== undefined) return describeThrown(err.cause);
    return err.name || 'unknown error';
  }
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object') {
    const m = (err as { message?: unknown }).message;
    if (typeof m === 'string' && m) return m;
    try {
      const json = JSON.stringify(err);
      if (json && json !== '{}') return json.length > 300 ? `${json.slice(0, 300)}…` : json;
    } catch {
      /* cyclic: fall through */
    }
    return `${(err as object).constructor?.name || 'an object'} with no message`;
  }
  return String(err);
}
