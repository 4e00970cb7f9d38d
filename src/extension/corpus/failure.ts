// What the log and the toast say when a corpus does not open. A model whose vectors are not the corpus's is no
// connection failure (the corpus opened): the line says so, with the sizes and the fix the error names.
import { errorText } from '../../core/redact.js';

export function connectFailure(label: string, err: unknown): string {
  // By name: the class does not survive the corpus process's boundary everywhere, its name does.
  if (err instanceof Error && err.name === 'CorpusMismatchError') return `the embedding model does not fit ${label}: ${errorText(err)}`;
  return `could not connect to ${label}: ${errorText(err)}`;
}
