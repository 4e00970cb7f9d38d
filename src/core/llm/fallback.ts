// A fallback model (`corpusLens.llm.fallbackModel`, `--llm-fallback-model`): when the primary fails in a way another
// model can help with — it timed out, the endpoint answered 5xx or 429 after the client's retries, or it does not
// know the model (404) — the same request goes to the fallback, and the answer says which model gave it
// (`usage.model`), so that the trace can name it. Not on 401/403 (a wrong key is wrong for both), 400 (the request
// itself), a connection failure (the same endpoint serves both), a cancel, or a stream that already sent text (the
// reader has seen it; a second model would repeat it). Once the primary has failed, the rest of the run goes to the
// fallback at once instead of waiting for the primary's timeout again at every step.
import { isAbortError, LlmError, type ChatModel, type ChatRequest, type ChatResult } from './chat.js';

/** Whether the primary's error is one a fallback model may answer instead. */
export function fallsBack(err: unknown): boolean {
  if (isAbortError(err) || !(err instanceof LlmError)) return false;
  if (err.kind === 'timeout') return true;
  if (err.kind !== 'http' || err.status === undefined) return false;
  return err.status >= 500 || err.status === 404 || err.status === 429;
}

export class FallbackChat implements ChatModel {
  /** Why the primary was given up (its error message), once it has been. */
  primaryFailure: string | undefined;

  constructor(
    private readonly primary: ChatModel,
    private readonly fallback: ChatModel,
  ) {}

  get model(): string {
    return this.primary.model;
  }

  async complete(req: ChatRequest): Promise<ChatResult> {
    if (this.primaryFailure === undefined) {
      let emitted = false;
      const onToken = req.onToken;
      try {
        return await this.primary.complete(
          onToken
            ? {
                ...req,
                onToken: (d) => {
                  emitted = true;
                  onToken(d);
                },
              }
            : req,
        );
      } catch (err) {
        if (emitted || !fallsBack(err)) throw err;
        this.primaryFailure = (err as Error).message;
      }
    }
    try {
      const r = await this.fallback.complete(req);
      return { ...r, usage: { ...r.usage, model: this.fallback.model } };
    } catch (err) {
      if (err instanceof LlmError && !isAbortError(err)) {
        throw new LlmError(
          err.step,
          err.kind,
          `${err.message.replace(/^step "[^"]*": /, '')} (the fallback model ${this.fallback.model}, after the primary ${this.primary.model} failed: ${this.primaryFailure?.replace(/^step "[^"]*": /, '')})`,
          err.status,
          { cause: err },
        );
      }
      throw err;
    }
  }
}
