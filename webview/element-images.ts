// The images on the Ask tab's element cards: a PDF element's region of its page, drawn here by PDF.js (the crop
// script, dist/pdf-crop.js, loaded the first time a card needs it, so the panel starts without PDF.js) from the
// bytes the host sends for it, or the PNG the host cached from an earlier drawing. Each drawing goes back to the host
// (askCropDone) for its cache, which the @corpus chat answers show too. Only PNG data: URLs become an <img> source.
import { el } from './dom.js';
import type { ElementImageView, HostMessage, ViewMessage } from './protocol.js';
import type { CropRenderer } from './pdf/protocol.js';

const PNG_URL = 'data:image/png;base64,';

/** Where the crop script is (the panel's HTML says, on #root) and the nonce it runs with. */
export interface CropScript {
  src: string;
  worker: string;
  nonce: string;
}

type CropData = Extract<HostMessage, { type: 'askCropData' }>;

export class ElementImages {
  /** Drawn crops by key, so a card rendered again (every answer re-renders the conversation) is not drawn again. */
  private readonly drawn = new Map<string, string>();
  private readonly failed = new Map<string, string>();
  private readonly asked = new Set<string>();
  private renderer: Promise<CropRenderer> | undefined;
  /** One drawing at a time: each holds a page's canvas. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly post: (m: ViewMessage) => void,
    private readonly script: CropScript | null,
  ) {}

  /** What a card shows for its image: the crop, a placeholder while it is drawn, a note, or nothing (a text card). */
  slot(image: ElementImageView | null | undefined, label: string): HTMLElement | null {
    if (!image) return null;
    if (image.kind === 'missing') return this.note('No image: the PDF is not on this machine.');
    if (image.kind === 'png') return image.src.startsWith(PNG_URL) ? this.img(image.src, label) : null;
    const png = this.drawn.get(image.key);
    if (png) return this.img(png, label);
    const failed = this.failed.get(image.key);
    if (failed !== undefined) return this.note(`No image: ${failed}`);
    if (!this.script) return null;
    if (!this.asked.has(image.key)) {
      this.asked.add(image.key);
      this.post({ type: 'askCrop', key: image.key });
    }
    return el(
      'div',
      { class: 'cl-ask-element-image cl-ask-crop-pending', attrs: { 'data-crop': image.key, 'data-label': label } },
      'Drawing its region of the page…',
    );
  }

  /** The host's bytes for `key`: draw, show, send back. */
  data(m: CropData): void {
    this.queue = this.queue.then(() => this.draw(m));
  }

  /** The host could not give the bytes for `key`. */
  refused(key: string, message: string): void {
    this.failed.set(key, message);
    this.fill(key);
  }

  private async draw(m: CropData): Promise<void> {
    try {
      const renderer = await this.load();
      const { png } = await renderer.render({ docId: m.docId, data: m.data, page: m.page, bbox: m.bbox });
      this.drawn.set(m.key, png);
      this.fill(m.key);
      this.post({ type: 'askCropDone', key: m.key, png });
    } catch (err) {
      const message = (err as Error).message || String(err);
      this.failed.set(m.key, `its region could not be drawn (${message})`);
      this.fill(m.key);
      this.post({ type: 'askCropDone', key: m.key, png: null, message });
    }
  }

  /** Replaces the placeholders of `key` with what is known of it now. */
  private fill(key: string): void {
    for (const slot of Array.from(document.querySelectorAll<HTMLElement>('.cl-ask-crop-pending'))) {
      if (slot.dataset.crop !== key) continue;
      const next = this.slot({ kind: 'pdf', key }, slot.dataset.label ?? '');
      if (next) slot.replaceWith(next);
      else slot.remove();
    }
  }

  private load(): Promise<CropRenderer> {
    const script = this.script;
    if (!script) return Promise.reject(new Error('no crop script'));
    this.renderer ??= new Promise<CropRenderer>((resolve, reject) => {
      const s = document.createElement('script');
      s.nonce = script.nonce;
      s.dataset.worker = script.worker;
      s.src = script.src;
      s.onload = () => {
        const r = (window as unknown as { corpusLensCrop?: CropRenderer }).corpusLensCrop;
        if (r) resolve(r);
        else reject(new Error('the crop script did not start'));
      };
      s.onerror = () => reject(new Error('the crop script did not load'));
      document.body.appendChild(s);
    }).catch((err: unknown) => {
      this.renderer = undefined;
      throw err;
    });
    return this.renderer;
  }

  private img(src: string, label: string): HTMLElement {
    return el('img', { class: 'cl-ask-element-image', attrs: { src, alt: `${label}: its region of the page`, 'data-drawn': 'true' } });
  }

  private note(text: string): HTMLElement {
    return el('span', { class: 'cl-ask-element-note' }, text);
  }
}
