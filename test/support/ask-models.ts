/**
 * Scripted models for "Ask the corpus", served by the chat-completions stand-in (chat-standin.ts, which lists what
 * the stand-in does not cover). They read the ask prompts the way a model would — the question in <user_topic>, the
 * evidence by paper id in <corpus_data> (the related-work write step's layout) — and answer in plain text.
 *
 * - faithful: each sentence paraphrases (at most 10 leading words of) the evidence sentence that shares most words
 *   with the question, citing its paper; "I don't know." when no evidence sentence shares a word with it. Its
 *   follow-up rewrite prefixes the previous question. The verification step says "supported" (reviewModel's).
 * - liar: the faithful sentences plus the lies real models tell: an invented author-year paper, a raw \cite of an
 *   invented key, an unknown paper id, a numeric citation, an invented statistic with a valid citation, and a
 *   evidence sentence copied whole without quotation marks (which the check turns into a quotation), and its first
 *   words cut off mid-clause (a fragment, which the check removes: issue 32.3).
 * - inventor: only an invented finding, cited to the first paper: nothing of it is supported.
 * Limits: word overlap stands in for understanding; the rewrite resolves nothing but prefixes the last question.
 */
import {
  CORPUS_TAG,
  fenced,
  fragment,
  paraphrase,
  reviewModel,
  TOPIC_TAG,
  writeData,
  type ChatCall,
  type Reply,
  type Script,
} from './chat-standin.js';

const STOP = new Set(
  'the a an of and or to in on for with by from as is are was were be does do did what which how when where who why it its this that these those much many more most than'.split(
    ' ',
  ),
);

function terms(s: string): Set<string> {
  return new Set((s.toLowerCase().match(/[a-z0-9@-]{3,}/g) ?? []).filter((w) => !STOP.has(w)));
}

function best(question: string, data: string): { id: string; quote: string; overlap: number }[] {
  const q = terms(question);
  return writeData(data)
    .flatMap((p) => p.quotes.map((quote) => ({ id: p.id, quote, overlap: [...terms(quote)].filter((w) => q.has(w)).length })))
    .filter((x) => x.overlap > 0)
    .sort((a, b) => b.overlap - a.overlap);
}

function faithfulLines(call: ChatCall): string[] {
  const picks = best(fenced(call, TOPIC_TAG), fenced(call, CORPUS_TAG));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const p of picks) {
    if (seen.has(p.id) || lines.length >= 2) continue;
    seen.add(p.id);
    lines.push(`Prior work reports that ${paraphrase(p.quote)} [${p.id}].`);
  }
  return lines;
}

export const ASK_LIES = /llama|Smith|2099|smith2099|400|37\s*%|\[12\]|P77|later study|In one study|\[P\d+\]|\\cite/i;

function model(kind: 'faithful' | 'liar' | 'inventor'): Script & { steps: string[] } {
  const verify = reviewModel();
  const steps: string[] = [];
  const fn = (call: ChatCall): Reply => {
    const step = call.step ?? 'unknown';
    steps.push(step);
    if (step === 'verify') return verify(call) as Reply;
    if (step === 'rewrite') {
      const history = fenced(call, CORPUS_TAG);
      const last = [...history.matchAll(/^Q\d+: (.*)$/gm)].pop()?.[1] ?? '';
      return { content: `${last.replace(/\?$/, '')}: ${fenced(call, TOPIC_TAG)}` };
    }
    if (step !== 'answer') return { content: '{}' };
    const data = fenced(call, CORPUS_TAG);
    const p0 = writeData(data)[0]?.id ?? 'P1';
    if (kind === 'inventor') return { content: `Quantum llamas improve retrieval by 400% in every benchmark [${p0}].` };
    const lines = faithfulLines(call);
    if (kind === 'faithful') return { content: lines.length ? lines.join(' ') : "I don't know." };
    const quote = writeData(data)
      .flatMap((p) => p.quotes.map((q) => ({ id: p.id, q })))
      .find((x) => x.q.split(/\s+/).length >= 16);
    lines.push(
      `Smith et al. (2099) showed that quantum llamas help [${p0}].`,
      'Quantum llamas improve retrieval by 400% \\cite{smith2099quantum}.',
      'A later study extended this to new settings [P77].',
      'As shown in [12], retrieval always helps writers.',
      `This approach improves citation precision by 37% [${p0}].`,
      ...(quote ? [`Notably, ${quote.q.replace(/[.!?]$/, '')} [${quote.id}].`, `In one study, ${fragment(quote.q)} [${quote.id}].`] : []),
    );
    return { content: lines.join(' ') };
  };
  return Object.assign(fn, { steps });
}

export const faithfulAskModel = () => model('faithful');
export const liarAskModel = () => model('liar');
export const inventorAskModel = () => model('inventor');
