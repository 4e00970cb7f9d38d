// A tiny element builder. Strings always become text nodes and attributes are set with setAttribute, so corpus
// text can never be parsed as HTML (there is no innerHTML anywhere in the webview).

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes (aria-*, role, data-*, …); `true` sets an empty attribute, false/null/undefined skips it. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K];
export function el(tag: string, props?: Props, ...children: Child[]): HTMLElement;
export function el(tag: string, props: Props = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.attrs) {
    for (const [name, value] of Object.entries(props.attrs)) {
      if (value === false || value === null || value === undefined) continue;
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** Replaces all children of `parent` (removing with replaceChildren: no HTML parsing). */
export function replace(parent: Element, ...children: Child[]): void {
  const frag = document.createDocumentFragment();
  append(frag, children);
  parent.replaceChildren(frag);
}
