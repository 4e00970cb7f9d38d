// English stop words, one list for the whole code: the offline embedder, BM25, the grounding checks and Ask's
// query rewrite drop `isStopWord` words; the panel's highlighting drops `isHighlightStopWord` words, a superset.
//
// STOP_WORDS is part of the offline embedder's model: a stored offline vector was computed without these words,
// so adding or removing one changes every vector and leaves existing corpora answering queries embedded
// differently. Grow HIGHLIGHT_EXTRA instead, which only changes what the panel marks.

// Function words, a few academic fillers that carry no topic, and the citation placeholders of the eval claims.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have having ' +
    'he her here hers herself him himself his how i if in into is it its itself just me more most my myself no ' +
    'nor not now of off on once only or other our ours ourselves out over own same she should so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very ' +
    'was we were what when where which while who whom why will with would you your yours yourself yourselves ' +
    'et al may might must shall upon via within without however thus therefore although though whereas whether ' +
    'yet either neither among amongst onto per since toward towards us cit multi_cit other_cit'
  ).split(/\s+/),
);

// What highlighting also skips: more function words and abbreviations, and the words every paper uses about
// itself ("paper", "show", "study"), which would otherwise be marked as the field's common phrasing in every list.
const HIGHLIGHT_EXTRA: ReadonlySet<string> = new Set(
  (
    'aren cannot done else etc even ever every isn least less let like made make makes many much often one ' +
    'others otherwise perhaps rather several use used uses using whatever whose e g ie eg cf vs ' +
    'paper papers work works show shows shown study studies approach result results propose proposed present ' +
    'presented well new based first second two three way ways given'
  ).split(/\s+/),
);

/** True when `word` (lowercased, diacritics folded) is an English stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** True when the side panel's highlighting skips `word` (lowercased): a stop word or a topic-free academic word. */
export function isHighlightStopWord(word: string): boolean {
  return STOP_WORDS.has(word) || HIGHLIGHT_EXTRA.has(word);
}
