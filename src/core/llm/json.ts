// JSON replies: extracted from the model's text (code fences and chatter around the object tolerated),
// validated with a zod schema; on failure ONE repair request that sends the validation error back; a second
// failure is an LlmError naming the step.
import type { z } from 'zod';
import { LlmError, type ChatMessage, type ChatModel, type ChatRequest, type TokenUsage } from './chat.js';

export interface JsonRequest<T> extends Omit<ChatRequest, 'json' | 'onToken'> {
  schema: z.ZodType<T>;
  /** Called with the usage of every call made (the first and the repair). */
  onUsage?: (usage: TokenUsage) => void;
}

export interface JsonResult<T> {
  value: T;
  /** LLM calls made: 1, or 2 when a repair was needed. */
  calls: number;
  repaired: boolean;
}

/** The JSON value in a model reply: the whole text, a ```json fence, or the outermost {...}/[...] span. */
export function extractJson(text: string): unknown {
  const t = text.trim();
  const candidates: string[] = [t];
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(t);
  if (fence) candidates.push(fence[1].trim());
  const o1 = t.indexOf('{');
  const o2 = t.lastIndexOf('}');
  if (o1 >= 0 && o2 > o1) candidates.push(t.slice(o1, o2 + 1));
  const a1 = t.indexOf('[');
  const a2 = t.lastIndexOf(']');
  if (a1 >= 0 && a2 > a1) candidates.push(t.slice(a1, a2 + 1));
  let first: unknown;
  for (const c of candidates) {
    try {
      return JSON.parse(c);
    } catch (err) {
      first ??= err;
    }
  }
  throw new SyntaxError(`not valid JSON (${first instanceof Error ? first.message : String(first)})`);
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseJsonReply<T>(text: string, schema: z.ZodType<T>): Parsed<T> {
  let raw: unknown;
  try {
    raw = extractJson(text);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const r = schema.safeParse(raw);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: `does not match the expected shape: ${describe(r.error)}` };
}

/** A chat call whose reply must be JSON of `schema`; one repair retry, then a clear error naming the step. */
export async function completeJson<T>(chat: ChatModel, req: JsonRequest<T>): Promise<JsonResult<T>> {
  const { schema, onUsage, ...rest } = req;
  // A reply that does not parse is repaired, not reused: the response cache keeps only what this function accepts.
  const cacheable = (text: string) => parseJsonReply(text, schema).ok;
  const first = await chat.complete({ ...rest, json: true, cacheable });
  onUsage?.(first.usage);
  const p1 = parseJsonReply(first.text, schema);
  if (p1.ok) return { value: p1.value, calls: 1, repaired: false };
  const repair: ChatMessage[] = [
    ...req.messages,
    { role: 'assistant', content: first.text.slice(0, 20_000) },
    {
      role: 'user',
      content:
        `Your reply could not be used: it ${p1.error}. ` +
        'Reply again with ONLY the corrected JSON object, in the format described above, and nothing else.',
    },
  ];
  const second = await chat.complete({ ...rest, messages: repair, json: true, cacheable });
  onUsage?.(second.usage);
  const p2 = parseJsonReply(second.text, schema);
  if (p2.ok) return { value: p2.value, calls: 2, repaired: true };
  throw new LlmError(req.step, 'invalid-output', `the model's reply was not usable JSON after one repair attempt: it ${p2.error}`);
}
