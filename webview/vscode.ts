// A typed handle on the webview API VS Code injects (`acquireVsCodeApi`, callable once). Outside VS Code (a
// plain browser) it falls back to an in-memory stand-in so the page still renders.
import type { HighlightMode, Offset, ViewMessage, ViewState } from './protocol.js';

/** What the view keeps across hide/show and reloads (`setState`): the toggles and the last state shown. */
export interface PersistedState {
  v: 1;
  highlight: HighlightMode;
  offset: Offset;
  last?: ViewState;
  /** The tab shown. */
  tab?: 'similar' | 'ask';
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  // Injected by VS Code into webviews.
  var acquireVsCodeApi: (() => VsCodeApi) | undefined;
}

export interface Host {
  post(message: ViewMessage): void;
  load(): PersistedState | undefined;
  save(state: PersistedState): void;
}

export function connectHost(): Host {
  let api: VsCodeApi;
  if (typeof globalThis.acquireVsCodeApi === 'function') {
    api = globalThis.acquireVsCodeApi();
  } else {
    let kept: unknown;
    api = {
      postMessage: (m) => console.info('[corpus-lens] (no host)', m),
      getState: () => kept,
      setState: (s) => {
        kept = s;
      },
    };
  }
  return {
    post: (message) => api.postMessage(message),
    load() {
      const s = api.getState() as Partial<PersistedState> | undefined;
      return s && s.v === 1 ? (s as PersistedState) : undefined;
    },
    save: (state) => api.setState(state),
  };
}
