// title_key (store/sql/lookup.ts) on titles whose keys must not move, and on titles in other scripts: each with its key.
// The Latin keys are schema v17's (read from its function): v18 keeps every one of them.
export const LATIN_TITLE_KEYS: Array<[string, string]> = [
  ['SPARSE lexical retrieval: improves recall on long queries!', 'sparselexicalretrievalimprovesrecallonlongqueries'],
  ['Über Ärger — Ça ﬁnit «bien» (2020), naïve Ǆ ẞ', 'uberargercafinitbien2020naivedz'],
  ['Straße Łódź Øresund æther µ-law ½ ² ª', 'straeodzresundtherlaw'],
  ["Don't \u0065\u0301 x\u00a0y\u2013z “q”", 'dontexyzq'],
];

/** Keys of titles in other scripts: letters and digits kept, Cyrillic and Greek capitals and accents folded. */
export const OTHER_TITLE_KEYS: Array<[string, string]> = [
  ['深度学习的文本检索方法研究', '深度学习的文本检索方法研究'],
  ['深層学習による文検索：データ、テスト。', '深層学習による文検索データテスト'],
  ['ГЛУБОКОЕ обучение для поиска — Ёлка, Йод', 'глубокоеобучениедляпоискаелкаиод'],
  ['Βαθιά Μάθηση', 'βαθιαμαθηση'],
  ['한국어 정보 검색', '한국어정보검색'],
  ['β-lactamase inhibitors', 'βlactamaseinhibitors'],
];
