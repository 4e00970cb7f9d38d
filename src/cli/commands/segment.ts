import { parseCommand } from '../options.js';
import { segmentSpec } from '../spec.js';
import { FORMATS, TextModel, type Format, type Sentence } from '../../core/text/index.js';
import { CliError, printJson, type Command } from '../command.js';
import { readDocument } from '../read-document.js';

/** `corpus-lens segment`: every sentence of a document, or the sentence at given cursor offsets. */
export const segmentCommand: Command = {
  async run(args) {
    const parsed = parseCommand(segmentSpec, args);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return 0;
    }
    const { values, positionals } = parsed;
    const format = parseFormat(values.format, positionals[0]);
    if (positionals.length > 1) throw new CliError('segment takes at most one FILE', 2);
    const text = await readDocument(positionals[0]);
    const model = new TextModel(text, format);
    if (values.at === undefined) {
      printJson(model.sentences().map(shape));
      return 0;
    }
    const offsets = parseOffsets(values.at, text.length);
    const found = offsets.map((o) => model.sentenceAt(o));
    // null stays the JSON answer (scripts rely on it); a person reading the terminal is told what it means.
    offsets.forEach((o, i) => {
      if (!found[i]) process.stderr.write(`corpus-lens: no sentence at offset ${o}: ${whatIsAt(text, o)}\n`);
    });
    printJson(offsets.length === 1 ? shapeOrNull(found[0]) : found.map(shapeOrNull));
    return 0;
  },
};

function parseFormat(value: string | undefined, file: string | undefined): Format {
  const guessed = value ?? (file?.endsWith('.tex') ? 'latex' : file && /\.(md|markdown|qmd|rmd)$/i.test(file) ? 'markdown' : undefined);
  if (!guessed) throw new CliError(`--format is required (one of: ${FORMATS.join(', ')})`, 2);
  if (!FORMATS.includes(guessed as Format)) throw new CliError(`unknown format '${guessed}' (expected one of: ${FORMATS.join(', ')})`, 2);
  return guessed as Format;
}

function parseOffsets(value: string, length: number): number[] {
  return value.split(',').map((part) => {
    const n = Number(part.trim());
    if (part.trim() === '' || !Number.isInteger(n)) throw new CliError(`--at: '${part}' is not an integer offset`, 2);
    if (n < 0 || n > length) throw new CliError(`--at: offset ${n} is out of range (the document has ${length} UTF-16 code units)`, 2);
    return n;
  });
}

/** Why an offset holds no sentence, in the words of a person at a cursor. */
function whatIsAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  if (!line.trim()) return 'it is on a blank line (between paragraphs)';
  return 'it is in markup, a comment or a heading, not in a prose sentence';
}

function shape(s: Sentence) {
  return { start: s.start, end: s.end, text: s.text, clean: s.clean, section: s.section };
}

function shapeOrNull(s: Sentence | null) {
  return s ? shape(s) : null;
}
