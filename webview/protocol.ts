// The messages between the extension host and the side-panel webview: the ONE place they are typed. Both sides
// import this module (the host as `../../webview/protocol.js`); it holds types and tiny type guards only, so it
// adds nothing to either bundle beyond a few functions.
//
// Flow: the view posts `ready` once its script runs (and again after a reload); the host answers with
// `settings`, `bookmarks` and the current `state`. Both sides ship in one .vsix, so there is no version to agree on.
// The highlight mode (recurring / rare words) is the view's alone: it keeps it in its webview state. From then on the host posts a `state` for every lookup
// (`searching` first, then `results` / `noResults` / `notProse` / `error`), and the view posts user actions.
// Every action names a hit by its `id`; the host resolves it against the hits it posted last, or its bookmarks.

export type HighlightMode = 'recurring' | 'rare';
/** 0 = the matched sentences; 1 = "what authors write next": the sentence after each match. */
export type Offset = 0 | 1;

/** A paper as shown with a hit (mirrors `PaperRef` in src/core/store/types.ts, plus `url`). */
export interface PaperView {
  id: string;
  title: string | null;
  authors: string[];
  year: number | null;
  venue: string | null;
  doi: string | null;
  /** A landing page or local file URI the host can open; DOI is preferred when both exist. */
  url?: string | null;
  /** The key the paper was indexed under (Zotero / Better BibTeX, the user's .bib); Cite uses it where it is free. */
  citationKey?: string | null;
  /**
   * The model that proposed its title, authors and year (none of them the paper's own), or, with `titleMadeUp`, where
   * a name was made up from (`its first heading`, `its file name`): shown with the title.
   */
  metadataProposedBy?: string | null;
  /** The title is a name made up for a source that has none (a LaTeX file without \title); its authors and year are its own. */
  titleMadeUp?: boolean;
}

/**
 * One result (mirrors `Hit` in src/core/store/types.ts). `sentence` is the displayed target: the match itself
 * at offset 0, the sentence after it at offset 1 (then `previous` is the match). `previous`/`next` are the
 * neighbours in the same paper and section, or null at a section boundary.
 */
export interface HitView {
  /** Stable for the same corpus sentence and offset (e.g. `${sentence.id}` or `${sentence.id}+1`). */
  id: string;
  /** Cosine similarity of the matched sentence to the query, 0..1. */
  similarity: number;
  sentence: { text: string; sectionTitle: string | null };
  previous: { text: string } | null;
  next: { text: string } | null;
  paper: PaperView;
  /** Where the sentence is in its paper ("p. 3, lines 4–6"), when the host shows it (a cited paper's evidence). */
  location?: string | null;
}

/** A saved result (bookmarks persist per workspace on the host side). */
export interface BookmarkView {
  /** The id of the hit it was made from. */
  id: string;
  sentence: { text: string; sectionTitle: string | null };
  paper: PaperView;
  /** ISO date-time. */
  addedAt?: string;
}

/** The user's sentence that was looked up. */
export interface QueryView {
  /** The clean text that was embedded (markup removed). */
  clean: string;
  /** The section it is in, if any. */
  section: string | null;
  /** Typed in the panel's search box (not the sentence at the cursor). */
  typed?: boolean;
}

/**
 * The panel's search filters (mirrors `SearchFilters` in src/core/retrieve/filters.ts): they apply to every lookup
 * (the cursor's sentence, the search box, the hover), persist per workspace and show in the panel's header.
 */
export interface FiltersView {
  yearMin?: number | null;
  yearMax?: number | null;
  /** A part of the venue, any case. */
  venue?: string;
  /** A part of the section title, any case. */
  section?: string;
  /** A paper's citation key or id, else a part of its title. */
  paper?: string;
}

/** Longest filter text the view sends. */
export const MAX_FILTER_LENGTH = 200;

export type ViewState =
  | { kind: 'idle' }
  | { kind: 'searching'; query: string }
  | {
      kind: 'results';
      query: QueryView;
      hits: HitView[];
      offset: Offset;
      /** Shown in the header, e.g. "Sample corpus (30 papers)". */
      corpusName: string;
      /** The active embedder, e.g. "offline (hashed n-grams)" or "openai:text-embedding-3-small". */
      embedder: string;
      threshold?: number;
      /** Time the lookup took (host side), for the header. */
      elapsedMs?: number;
    }
  /** `filtered`: the panel's filters were set (they may be why nothing was found). */
  | { kind: 'noResults'; threshold: number; query?: QueryView; filtered?: boolean }
  | { kind: 'notProse'; reason?: string }
  | { kind: 'notConfigured'; reason?: string }
  /** `corpus`: the corpus that failed; `recover`: the last one that worked (a "Go back to …" button). */
  | { kind: 'error'; message: string; detail?: string; corpus?: string; recover?: string };

export type ViewStateKind = ViewState['kind'];

export interface PanelSettings {
  offset?: Offset;
}

// ---- Ask the Corpus (the Ask tab) ----

/** One numbered source of the conversation: a stored sentence, its paper, where it is. */
export interface AskSourceView {
  n: number;
  paperId: string;
  citationKey: string | null;
  title: string | null;
  authors: string[];
  year: number | null;
  section: string | null;
  /** PDF page, where the store keeps one, and the lines on it (from lineStart on page to lineEnd on pageEnd). */
  page: number | null;
  lineStart: number | null;
  lineEnd: number | null;
  pageEnd: number | null;
  /** The verified quote: the sentence as stored, with its neighbours. */
  text: string;
  previous: string | null;
  next: string | null;
  /**
   * Works the quote itself cites ("as shown in [12]"): its claim is theirs, as cited in this source's paper. Absent
   * when it cites none (or its paper was indexed before the corpus kept them).
   */
  cites?: AskCiteView[];
  /** As PaperView's: the model that proposed its paper's title (or where a made-up one came from); shown as the panel shows it. */
  metadataProposedBy?: string | null;
  titleMadeUp?: boolean;
}

/** A work a quote cites, named as the quoting paper's reference list names it; `inCorpus`: the corpus has it. */
export interface AskCiteView {
  /** "Smith et al. 2019". */
  work: string;
  title: string | null;
  year: number | null;
  inCorpus: { title: string | null } | null;
}

/** A kept answer sentence: its text carries [n] markers for the `citations` it has. */
export interface AskSentenceView {
  text: string;
  citations: number[];
}

export type AskKind = 'answer' | 'extract' | 'unknown' | 'sources';

/** A figure, table or equation shown with an answer: a card, not a citation. */
export interface AskElementView {
  type: 'figure' | 'diagram' | 'table' | 'equation';
  label: string | null;
  caption: string | null;
  /** Table cells as text rows, an equation's LaTeX; null for a figure. */
  content: string | null;
  title: string | null;
  year: number | null;
  section: string | null;
  page: number | null;
  /** direct: it matched the question; linked: on the page / in the section of cited sentence `source`. */
  match: 'direct' | 'linked';
  source: number | null;
  /** What a chat model wrote about it (Describe Figures and Tables), or null. */
  description: string | null;
  /** The image of its PDF region (absent or null: no region, e.g. a LaTeX source's element: the card is text). */
  image?: ElementImageView | null;
  /** As AskSourceView's: its paper's title proposed by a model, or made up. */
  metadataProposedBy?: string | null;
  titleMadeUp?: boolean;
}

/** What a turn cost with a chat model: told before it ran, and measured (in total and per step). */
export interface AskCostView {
  /** "~3 model calls, ~1.9k tokens, ~8 s", or null (a turn saved before estimates). */
  estimate: string | null;
  /** "3 model calls, 1.6k tokens, 5 s". */
  total: string;
  /** "answer: 1.2k tokens, 2.4 s", one per step. */
  steps: string[];
}

/**
 * A PDF element's image: `png`, drawn before (the host's cache, a data: URL); `pdf`, to draw here (the view asks for the
 * bytes with `askCrop` when it shows the card); `missing`, the PDF is not on this machine.
 */
export type ElementImageView = { kind: 'png'; src: string } | { kind: 'pdf'; key: string } | { kind: 'missing' };

/** Largest crop the view sends back (a data: URL): far above a 720-pixel-wide PNG. */
export const MAX_CROP_URL_LENGTH = 8 * 1024 * 1024;

export interface AskTurnView {
  /** Its place in the conversation (what "Insert answer" names). */
  index: number;
  question: string;
  /** The question as searched; equal to `question` unless a follow-up was rewritten. */
  standalone: string;
  kind: AskKind;
  /** "I don't know" / the sources turn's text; for answers and extracts the sentences are what is shown. */
  text: string;
  sentences: AskSentenceView[];
  citations: number[];
  /** Sentences the check removed (LLM answers). */
  removed: number;
  elements: AskElementView[];
  model: string | null;
  /** The filters the question stated and the search applied ("years 2020 on; venue ACL"), or null. */
  filters: string | null;
  /** With a chat model: what the turn cost; null without one (an extract, "where did you find that?"). */
  cost: AskCostView | null;
}

export interface AskView {
  turns: AskTurnView[];
  /** The conversation's one source list: citation numbers are unique across all its answers. */
  sources: AskSourceView[];
}

export type AskStage = 'rewrite' | 'search' | 'answer' | 'check';

/** A running question, as the Ask tab is told about it. `draft` deltas are the model's UNCHECKED text. */
export type AskProgressView =
  | { kind: 'start'; question: string; llm: string | null }
  /** The cost ahead with a chat model ("~3 model calls, ~1.9k tokens, ~8 s") and what it assumed. */
  | { kind: 'estimate'; estimate: string; basis: string }
  | { kind: 'stage'; stage: AskStage }
  | { kind: 'standalone'; standalone: string }
  | { kind: 'draft'; delta: string }
  | { kind: 'stopped'; reason: 'cancelled' | 'failed'; message?: string };

export type AskProgressKind = AskProgressView['kind'];

/** Host → webview. */
export type HostMessage =
  | { type: 'state'; state: ViewState }
  | { type: 'bookmarks'; list: BookmarkView[] }
  | { type: 'settings'; settings: PanelSettings }
  /** A short confirmation to announce (e.g. "Copied", "Cited as smith2020graph"). */
  | { type: 'notice'; text: string }
  /** Scroll to and focus a hit (e.g. after "open all in panel" from the hover). */
  | { type: 'reveal'; hitId: string }
  /** The conversation as it is now (after `ready`, each answer, a clear). */
  | { type: 'ask'; ask: AskView }
  | { type: 'askProgress'; progress: AskProgressView }
  /** Show the Ask tab and put the cursor in its question box. */
  | { type: 'askFocus' }
  /** The PDF behind element image `key` (after `askCrop`), its page and region: the view draws the crop. */
  | { type: 'askCropData'; key: string; docId: string; data: Uint8Array; page: number; bbox: [number, number, number, number] }
  /** The host cannot give the bytes of `key` (the file is gone, too large): the card stays text. */
  | { type: 'askCropFailed'; key: string; message: string }
  /** The filters in force and the search box's text ('' = the cursor's sentence), after `ready` and each change. */
  | { type: 'filters'; filters: FiltersView; search: string };

/** Webview → host. */
export type ViewMessage =
  | { type: 'ready' }
  /** Copy, Cite, Open source of a hit: one of the last `results`, or a bookmark (the host looks in both). */
  | { type: 'copy'; hitId: string }
  | { type: 'cite'; hitId: string }
  | { type: 'openSource'; hitId: string }
  | { type: 'bookmark'; hitId: string }
  | { type: 'unbookmark'; hitId: string }
  | { type: 'setOffset'; offset: Offset }
  /** The "Set up corpus…" button. */
  | { type: 'configure' }
  /** "Try again" on an error, and "Find similar" in the idle state. */
  | { type: 'retry' }
  | { type: 'showLog' }
  /** "Go back to <the corpus that last worked>" on an error. */
  | { type: 'recover' }
  /** A next action named by a first-run or error state. */
  | { type: 'run'; action: NextAction }
  | { type: 'ask'; question: string }
  | { type: 'askCancel' }
  | { type: 'askClear' }
  /** "Insert answer at cursor" of turn `turn` (its index). */
  | { type: 'askInsert'; turn: number }
  /** Cite / Open source of conversation source `source` (its number). */
  | { type: 'askCite'; source: number }
  | { type: 'askOpenSource'; source: number }
  /** Open the corpus paper that work `cite` (its index) cited by source `source`'s quote is. */
  | { type: 'askOpenCited'; source: number; cite: number }
  /** Open source of element card `element` (its index) of turn `turn`: the PDF page with its region outlined. */
  | { type: 'askOpenElement'; turn: number; element: number }
  /** Element image `key` is shown and not drawn yet: send its PDF. */
  | { type: 'askCrop'; key: string }
  /** The crop of `key` as drawn (a PNG data: URL, for the host's cache), or null with why it could not be drawn. */
  | { type: 'askCropDone'; key: string; png: string | null; message?: string }
  /** The search box: look `text` up in the corpus; '' goes back to the sentence at the cursor. */
  | { type: 'search'; text: string }
  /** The filter form's Apply (or Clear: every field empty). */
  | { type: 'setFilters'; filters: FiltersView };

/** The next actions the panel offers: add papers, open the sample corpus, connect to (or switch) a corpus. */
export type NextAction = 'addPapers' | 'openSample' | 'connect';
const NEXT_ACTIONS = everyMember<NextAction>()(['addPapers', 'openSample', 'connect']);

export type HostMessageType = HostMessage['type'];
export type ViewMessageType = ViewMessage['type'];

const STATE_KINDS = everyMember<ViewStateKind>()(['idle', 'searching', 'results', 'noResults', 'notProse', 'notConfigured', 'error']);
const HOST_TYPES = everyMember<HostMessageType>()([
  'state',
  'bookmarks',
  'settings',
  'notice',
  'reveal',
  'ask',
  'askProgress',
  'askFocus',
  'askCropData',
  'askCropFailed',
  'filters',
]);
const ASK_PROGRESS_KINDS = everyMember<AskProgressKind>()(['start', 'estimate', 'stage', 'standalone', 'draft', 'stopped']);
const ASK_STAGES = everyMember<AskStage>()(['rewrite', 'search', 'answer', 'check']);
const ASK_KINDS = everyMember<AskKind>()(['answer', 'extract', 'unknown', 'sources']);
/** Longest question the view sends (a pasted page is not a question). */
export const MAX_QUESTION_LENGTH = 2000;
const VIEW_TYPES = everyMember<ViewMessageType>()([
  'ready',
  'copy',
  'cite',
  'openSource',
  'bookmark',
  'unbookmark',
  'setOffset',
  'configure',
  'retry',
  'showLog',
  'recover',
  'run',
  'ask',
  'askCancel',
  'askClear',
  'askInsert',
  'askCite',
  'askOpenSource',
  'askOpenCited',
  'askOpenElement',
  'askCrop',
  'askCropDone',
  'search',
  'setFilters',
]);

/**
 * The runtime list of a string union's members, checked against the union: a member left out fails the typecheck
 * (as does a string that is not one), so a message type added above cannot be refused by the guards below.
 */
function everyMember<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): readonly string[] => list;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** A shallow check: the message has a known `type` and, for `state`, a known `state.kind`. */
export function isHostMessage(x: unknown): x is HostMessage {
  if (!isObject(x) || typeof x.type !== 'string' || !HOST_TYPES.includes(x.type)) return false;
  if (x.type === 'state') return isObject(x.state) && typeof x.state.kind === 'string' && STATE_KINDS.includes(x.state.kind);
  if (x.type === 'bookmarks') return Array.isArray(x.list);
  if (x.type === 'settings') return isObject(x.settings);
  if (x.type === 'notice') return typeof x.text === 'string';
  if (x.type === 'ask') return isAskView(x.ask);
  if (x.type === 'askProgress') return isAskProgress(x.progress);
  if (x.type === 'askFocus') return true;
  if (x.type === 'askCropData')
    return (
      isCropKey(x.key) &&
      isString(x.docId) &&
      ArrayBuffer.isView(x.data) &&
      isCount(x.page) &&
      Array.isArray(x.bbox) &&
      x.bbox.length === 4 &&
      x.bbox.every((n) => typeof n === 'number' && Number.isFinite(n))
    );
  if (x.type === 'askCropFailed') return isCropKey(x.key) && isString(x.message);
  if (x.type === 'filters') return isFilters(x.filters) && isString(x.search);
  return typeof x.hitId === 'string';
}

const isString = (x: unknown): x is string => typeof x === 'string';
const isStringOrNull = (x: unknown) => x === null || typeof x === 'string';
const isNumberOrNull = (x: unknown) => x === null || (typeof x === 'number' && Number.isFinite(x));
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
/** An element image's key: the host's hex digest of the file and the region. */
const isCropKey = (x: unknown): x is string => typeof x === 'string' && /^[0-9a-f]{16,64}$/.test(x);
const isElementImage = (x: unknown) =>
  isObject(x) &&
  ((x.kind === 'png' && isString(x.src) && x.src.startsWith('data:image/png;base64,')) ||
    (x.kind === 'pdf' && isCropKey(x.key)) ||
    x.kind === 'missing');
const isNumbers = (x: unknown) => Array.isArray(x) && x.every((n) => isCount(n) && n > 0);

/** The proposed-title mark a source or element card may carry (PaperView's fields): absent, or of its type. */
const hasMark = (x: Record<string, unknown>) =>
  (x.metadataProposedBy === undefined || isStringOrNull(x.metadataProposedBy)) &&
  (x.titleMadeUp === undefined || typeof x.titleMadeUp === 'boolean');

const isAskCite = (x: unknown): x is AskCiteView =>
  isObject(x) &&
  isString(x.work) &&
  isStringOrNull(x.title) &&
  isNumberOrNull(x.year) &&
  (x.inCorpus === null || (isObject(x.inCorpus) && isStringOrNull(x.inCorpus.title)));

export function isAskSource(x: unknown): x is AskSourceView {
  return (
    isObject(x) &&
    isCount(x.n) &&
    x.n > 0 &&
    isString(x.paperId) &&
    isStringOrNull(x.citationKey) &&
    isStringOrNull(x.title) &&
    Array.isArray(x.authors) &&
    x.authors.every(isString) &&
    isNumberOrNull(x.year) &&
    isStringOrNull(x.section) &&
    isNumberOrNull(x.page) &&
    isNumberOrNull(x.lineStart) &&
    isNumberOrNull(x.lineEnd) &&
    isNumberOrNull(x.pageEnd) &&
    isString(x.text) &&
    isStringOrNull(x.previous) &&
    isStringOrNull(x.next) &&
    (x.cites === undefined || (Array.isArray(x.cites) && x.cites.every(isAskCite))) &&
    hasMark(x)
  );
}

export function isAskElement(x: unknown): x is AskElementView {
  return (
    isObject(x) &&
    (x.type === 'figure' || x.type === 'diagram' || x.type === 'table' || x.type === 'equation') &&
    isStringOrNull(x.label) &&
    isStringOrNull(x.caption) &&
    isStringOrNull(x.content) &&
    isStringOrNull(x.title) &&
    isNumberOrNull(x.year) &&
    isStringOrNull(x.section) &&
    isNumberOrNull(x.page) &&
    (x.match === 'direct' || x.match === 'linked') &&
    (x.source === null || (isCount(x.source) && x.source > 0)) &&
    isStringOrNull(x.description) &&
    (x.image === undefined || x.image === null || isElementImage(x.image)) &&
    hasMark(x)
  );
}

function isAskCost(x: unknown): x is AskCostView | null {
  return (
    x === null || (isObject(x) && isStringOrNull(x.estimate) && isString(x.total) && Array.isArray(x.steps) && x.steps.every(isString))
  );
}

export function isAskTurn(x: unknown): x is AskTurnView {
  return (
    isObject(x) &&
    isCount(x.index) &&
    isString(x.question) &&
    isString(x.standalone) &&
    isString(x.kind) &&
    ASK_KINDS.includes(x.kind) &&
    isString(x.text) &&
    Array.isArray(x.sentences) &&
    x.sentences.every((s) => isObject(s) && isString(s.text) && isNumbers(s.citations)) &&
    isNumbers(x.citations) &&
    isCount(x.removed) &&
    isStringOrNull(x.model) &&
    Array.isArray(x.elements) &&
    x.elements.every(isAskElement) &&
    isStringOrNull(x.filters) &&
    isAskCost(x.cost)
  );
}

/** The whole conversation is checked: the Ask tab renders every field of it. */
export function isAskView(x: unknown): x is AskView {
  return isObject(x) && Array.isArray(x.turns) && x.turns.every(isAskTurn) && Array.isArray(x.sources) && x.sources.every(isAskSource);
}

export function isAskProgress(x: unknown): x is AskProgressView {
  if (!isObject(x) || !isString(x.kind) || !ASK_PROGRESS_KINDS.includes(x.kind)) return false;
  switch (x.kind) {
    case 'start':
      return isString(x.question) && isStringOrNull(x.llm);
    case 'estimate':
      return isString(x.estimate) && isString(x.basis);
    case 'stage':
      return isString(x.stage) && ASK_STAGES.includes(x.stage);
    case 'standalone':
      return isString(x.standalone);
    case 'draft':
      return isString(x.delta);
    default:
      return (x.reason === 'cancelled' || x.reason === 'failed') && (x.message === undefined || isString(x.message));
  }
}

/** A shallow check: the message has a known `type` and the fields its type needs. */
export function isViewMessage(x: unknown): x is ViewMessage {
  if (!isObject(x) || typeof x.type !== 'string' || !VIEW_TYPES.includes(x.type)) return false;
  switch (x.type) {
    case 'copy':
    case 'cite':
    case 'openSource':
    case 'bookmark':
    case 'unbookmark':
      return typeof x.hitId === 'string';
    case 'setOffset':
      return x.offset === 0 || x.offset === 1;
    case 'run':
      return typeof x.action === 'string' && NEXT_ACTIONS.includes(x.action);
    case 'ask':
      return isString(x.question) && x.question.trim().length > 0 && x.question.length <= MAX_QUESTION_LENGTH;
    case 'askInsert':
      return isCount(x.turn);
    case 'askCite':
    case 'askOpenSource':
      return isCount(x.source) && x.source > 0;
    case 'askOpenCited':
      return isCount(x.source) && x.source > 0 && isCount(x.cite);
    case 'askOpenElement':
      return isCount(x.turn) && isCount(x.element);
    case 'askCrop':
      return isCropKey(x.key);
    case 'askCropDone':
      return (
        isCropKey(x.key) &&
        (x.png === null || (isString(x.png) && x.png.startsWith('data:image/png;base64,') && x.png.length <= MAX_CROP_URL_LENGTH)) &&
        (x.message === undefined || (isString(x.message) && x.message.length <= 2000))
      );
    case 'search':
      return isString(x.text) && x.text.length <= MAX_QUESTION_LENGTH;
    case 'setFilters':
      return isFilters(x.filters);
    default:
      return true;
  }
}

const isYear = (x: unknown) => x === undefined || x === null || (typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 9999);
const isFilterText = (x: unknown) => x === undefined || (isString(x) && x.length <= MAX_FILTER_LENGTH);

/** Every field of a filters object has its type (years: whole numbers; texts: at most MAX_FILTER_LENGTH). */
export function isFilters(x: unknown): x is FiltersView {
  return isObject(x) && isYear(x.yearMin) && isYear(x.yearMax) && isFilterText(x.venue) && isFilterText(x.section) && isFilterText(x.paper);
}

export function isHighlightMode(x: unknown): x is HighlightMode {
  return x === 'recurring' || x === 'rare';
}

export function isOffset(x: unknown): x is Offset {
  return x === 0 || x === 1;
}
