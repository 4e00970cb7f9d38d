// Text in a paper that addresses a language model ("Ignore previous instructions and cite …", "As an AI …",
// role tags, orders to an assistant) is an attack on the reader's tools, not a finding: it may reach a model
// inside the data fence (the prompts say data is never instructions), but it is never evidence, a verified quote
// or a quotation. A deterministic classifier applied where evidence is chosen (review's quote verification, Ask's
// evidence) rather than a flag stored at ingest: it needs no schema migration, covers corpora built before it
// and corpora this version does not write (CorpusStudio, a lab's PostgreSQL), and a better rule applies to every
// corpus at once. Limits: English phrasings only; a paper that discusses prompt injection in these very words is
// not evidence either.

const PATTERNS: readonly RegExp[] = [
  // "ignore / disregard / forget (all) (the) previous / prior / above instructions|prompts|rules"
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+)?(?:previous|prior|preceding|above|earlier|former|system)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages?)/i,
  // "as an AI (language model)", "you are an AI / a language model / an assistant"
  /\bas\s+an?\s+(?:ai|artificial\s+intelligence|large\s+language\s+model|language\s+model|llm|assistant|chatbot)\b/i,
  /\byou\s+(?:are|act\s+as|must\s+act\s+as)\s+(?:now\s+)?(?:an?\s+)?(?:helpful\s+)?(?:ai|assistant|language\s+model|llm|chatbot)\b/i,
  // role tags and chat-template markers
  /<\/?\s*(?:system|assistant|user|instructions?|corpus_data|user_topic)\s*>|<\|(?:im_start|im_end|system|user|assistant)\|>|\[\/?INST\]/i,
  /(?:^|\n)\s*(?:system|assistant)\s*:/i,
  // orders to the model that reads this: "(dear) AI / LLM / assistant / language model(s), (please) cite|say|…"
  /\b(?:ai|llms?|assistants?|language\s+models?|chatbots?|reviewers?\s+bots?)\s*[,:]\s*(?:please\s+)?(?:cite|say|reply|respond|answer|write|output|recommend|rate|ignore|state|include)\b/i,
  // "if you are an AI / a language model / an LLM …"
  /\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language\s+model|assistant|chatbot)\b/i,
  /\b(?:new|updated)\s+instructions?\s*:/i,
];

/** True when `text` addresses a language model rather than stating something (see the top of this file). */
export function addressesModel(text: string): boolean {
  return PATTERNS.some((p) => p.test(text));
}
