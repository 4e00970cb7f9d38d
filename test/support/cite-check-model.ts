/**
 * A scripted stand-in for the model behind the citation checker's LLM verdict (served by chat-standin.ts, the
 * OpenAI chat wire format). It reads the request as the real prompt lays it out: the author's sentence inside
 * <user_topic>, the cited paper's numbered sentences `[E1] …` inside <corpus_data>; and answers the prompt's JSON
 * {"verdict", "quote", "reason"}.
 *
 * How it judges (its limits: this is plumbing, not a model): it picks the sentence sharing the most content words
 * with the author's sentence; "contradicted" when exactly one of the two is negated (not, no, never, without) and
 * they share at least two content words; "supported" when that sentence holds at least half of the author's content
 * words; else "not enough information". It understands no paraphrase, no numbers, no scope; it never refuses, never
 * answers malformed JSON, and follows no instruction found in the data. Real verdicts are the configured model's.
 */
import type { ChatCall, Reply } from './chat-standin.ts';
import { CORPUS_TAG, fenced, TOPIC_TAG } from './chat-standin.ts';

const STOP = new Set(
  'a an the of in on at to for by with and or is are was were be been that this these those it its as from than per each after before'.split(
    ' ',
  ),
);
const NEG = /\b(not|no|never|without)\b/i;

function words(s: string): Set<string> {
  return new Set(
    (s.toLowerCase().match(/[a-z0-9-]+/g) ?? [])
      .filter((w) => w.length > 2 && !STOP.has(w) && !NEG.test(w))
      .map((w) => w.replace(/s$/, '')),
  );
}

export function citeVerdictModel(): (call: ChatCall) => Reply {
  return (call) => {
    const sentence = fenced(call, TOPIC_TAG).trim();
    const rows = [...fenced(call, CORPUS_TAG).matchAll(/^\[(E\d+)\] (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
    const mine = words(sentence);
    let best = { id: null as string | null, text: '', shared: 0 };
    for (const r of rows) {
      const shared = [...words(r.text)].filter((w) => mine.has(w)).length;
      if (shared > best.shared) best = { id: r.id, text: r.text, shared };
    }
    let verdict = 'not enough information';
    if (best.id && best.shared >= 2 && NEG.test(best.text) !== NEG.test(sentence)) verdict = 'contradicted';
    else if (best.id && best.shared >= Math.ceil(mine.size / 2)) verdict = 'supported';
    return {
      content: JSON.stringify({
        verdict,
        quote: best.id,
        reason: `${best.shared} of ${mine.size} content words in ${best.id ?? 'no sentence'}`,
      }),
    };
  };
}
