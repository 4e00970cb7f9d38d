// The images of PDF elements' regions (#36.9): the extension host has no canvas, so the panel draws each crop with
// PDF.js (webview/element-images.ts) from the bytes sent here, and sends the PNG back; it is kept on disk in the
// extension's global storage, one file per element region of a given file (its path, size and time of change in the
// key: a changed PDF is drawn again). Cards show a cached crop without PDF.js; @corpus chat answers show cached crops
// as images (a crop not drawn yet in the panel is not in the chat: the chat has no canvas either).
// Only PDFs the source opener would open (under a folder the user indexed, no larger than the viewer takes) are read.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { AskElement } from '../../core/ask/types.js';
import type { ElementImageView, HostMessage } from '../../../webview/protocol.js';
import { MAX_PDF_BYTES } from '../pdf/pdf-view.js';

/** Crops kept at most; the least recently drawn go first (a crop is 20 to 200 kB). */
export const MAX_CROPS = 500;
const PNG_URL = 'data:image/png;base64,';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type Bbox = [number, number, number, number];
type CropReply = Extract<HostMessage, { type: 'askCropData' | 'askCropFailed' }>;

interface Region {
  file: string;
  docId: string;
  page: number;
  bbox: Bbox;
}

export class ElementCrops {
  /** The regions the view was offered, by key: the view names a key, never a file. */
  private readonly regions = new Map<string, Region>();

  constructor(
    private readonly dir: string,
    /** The PDF a paper opens from on this machine (under an indexed folder), or null. */
    private readonly pdfOf: (paperId: string) => Promise<string | null>,
  ) {}

  /** Each element's image for its card: null for one without a PDF region (a LaTeX source's: its card is text). */
  async images(elements: readonly AskElement[]): Promise<Array<ElementImageView | null>> {
    const files = new Map<string, Promise<string | null>>();
    return Promise.all(
      elements.map(async (e): Promise<ElementImageView | null> => {
        if (!e.bbox || !e.page) return null;
        if (!files.has(e.paperId))
          files.set(
            e.paperId,
            this.pdfOf(e.paperId).catch(() => null),
          );
        const region = await this.region(await files.get(e.paperId)!, e.page, e.bbox);
        if (!region) return { kind: 'missing' };
        const png = await fs.readFile(this.fileOf(region.key)).catch(() => null);
        return png ? { kind: 'png', src: PNG_URL + png.toString('base64') } : { kind: 'pdf', key: region.key };
      }),
    );
  }

  /** The cached crop of an element, if the panel has drawn it (for the chat). */
  async cached(e: AskElement): Promise<string | undefined> {
    if (!e.bbox || !e.page) return undefined;
    const region = await this.region(await this.pdfOf(e.paperId).catch(() => null), e.page, e.bbox);
    if (!region) return undefined;
    const file = this.fileOf(region.key);
    return (await fs.access(file).then(
      () => true,
      () => false,
    ))
      ? file
      : undefined;
  }

  /** The view's `askCrop`: the PDF's bytes and the region to draw, or why not. */
  async request(key: string): Promise<CropReply> {
    const r = this.regions.get(key);
    if (!r) return { type: 'askCropFailed', key, message: 'the element is not in the conversation any more' };
    try {
      const stat = await fs.stat(r.file);
      if (stat.size > MAX_PDF_BYTES) return { type: 'askCropFailed', key, message: 'the PDF is too large to draw from' };
      const buf = await fs.readFile(r.file);
      return {
        type: 'askCropData',
        key,
        docId: r.docId,
        data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength),
        page: r.page,
        bbox: r.bbox,
      };
    } catch {
      return { type: 'askCropFailed', key, message: 'the PDF cannot be read on this machine any more' };
    }
  }

  /** The view's drawing of `key` (a PNG data: URL, checked): kept for the next card and the chat. */
  async save(key: string, png: string): Promise<void> {
    if (!this.regions.has(key) || !png.startsWith(PNG_URL)) return;
    const bytes = Buffer.from(png.slice(PNG_URL.length), 'base64');
    if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return;
    await fs.mkdir(this.dir, { recursive: true });
    await fs.writeFile(this.fileOf(key), bytes);
    await this.prune();
  }

  private async region(file: string | null, page: number, bbox: Bbox): Promise<(Region & { key: string }) | null> {
    if (!file) return null;
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile()) return null;
    const docId = createHash('sha256')
      .update(`${file}\0${stat.size}\0${Math.round(stat.mtimeMs)}`)
      .digest('hex')
      .slice(0, 24);
    const key = createHash('sha256')
      .update(`${docId}\0${page}\0${bbox.join(',')}`)
      .digest('hex')
      .slice(0, 32);
    const region = { file, docId, page, bbox };
    this.regions.set(key, region);
    return { ...region, key };
  }

  private fileOf(key: string): string {
    return path.join(this.dir, `${key}.png`);
  }

  private async prune(): Promise<void> {
    const names = (await fs.readdir(this.dir).catch(() => [] as string[])).filter((n) => n.endsWith('.png'));
    if (names.length <= MAX_CROPS) return;
    const dated = await Promise.all(
      names.map(async (n) => ({ n, t: (await fs.stat(path.join(this.dir, n)).catch(() => null))?.mtimeMs ?? 0 })),
    );
    dated.sort((a, b) => a.t - b.t);
    for (const { n } of dated.slice(0, names.length - MAX_CROPS)) await fs.rm(path.join(this.dir, n), { force: true });
  }
}
