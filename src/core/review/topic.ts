// Step 1: the topic — given by the user, or the paper's title and abstract.
import { TextModel } from '../text/index.js';
import type { OutputFormat } from './types.js';

/** The paper's title + abstract (clean text); without an abstract, the title + the first three sentences. */
export function defaultTopic(text: string, format: OutputFormat): string {
  const model = new TextModel(text, format);
  const title = model.title()?.trim() ?? '';
  const sentences = model.sentences();
  let body = sentences.filter((s) => (s.section ?? '').trim().toLowerCase() === 'abstract').map((s) => s.clean);
  if (!body.length) body = sentences.slice(0, 3).map((s) => s.clean);
  return [title ? (/[.!?]$/.test(title) ? title : `${title}.`) : '', ...body].filter(Boolean).join(' ').trim();
}

/** The topic a run uses: the given text (white space collapsed), else the document's default. */
export function resolveTopic(topic: string | undefined, document?: { text: string; format: OutputFormat }): string {
  const given = (topic ?? '').replace(/\s+/g, ' ').trim();
  if (given) return given;
  if (document) {
    const t = defaultTopic(document.text, document.format);
    if (t) return t;
  }
  throw new Error('step "topic": no topic given and the document has no title or abstract');
}
