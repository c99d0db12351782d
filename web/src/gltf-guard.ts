// What the studio's page hands to three's GLTFLoader from an untrusted .glb or .gltf: URIs resolved only
// against the files opened with it (never fetched), textures within a pixel budget, and the key count checked
// against the studio's budgets before anything is read.

/** Most pixels of one texture the page decodes: 4096 x 4096 (64 MiB as RGBA, about 85 MiB with mipmaps). */
export const MAX_TEXTURE_PIXELS = 4096 * 4096;
/** Most pixels of all of a file's textures together: four budget-sized textures. */
export const MAX_TOTAL_TEXTURE_PIXELS = 4 * MAX_TEXTURE_PIXELS;
/** Animation keys (all samplers' key times) above which the studio asks before opening a file. */
export const ASK_KEYS = 500_000;
/** Animation keys above which the studio refuses a file (the command line reads and reduces it). */
export const MAX_KEYS = 8_000_000;

/** A 1x1 grey PNG, drawn in place of an image that is not drawn (not opened with the file, or over budget). */
export const PLACEHOLDER_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==';

/** What {@link guardGltf} found and what GLTFLoader may read. */
export interface GuardedGltf {
  /** The bytes for GLTFLoader (rewritten where an image was replaced), or null: the mesh is not loaded. */
  bytes: ArrayBuffer | null;
  /** One sentence per URI not fetched and per texture not drawn. */
  warnings: string[];
  /** Keys of all animation samplers (input accessor counts), from the JSON alone. */
  keys: number;
}

interface GltfJson {
  buffers?: { uri?: string; byteLength?: number }[];
  bufferViews?: { buffer?: number; byteOffset?: number; byteLength?: number }[];
  images?: { uri?: string; bufferView?: number; mimeType?: string; name?: string }[];
  accessors?: { count?: number }[];
  animations?: { samplers?: { input?: number }[] }[];
}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** The file name a URI names (URI-decoded, folders dropped), as the studio matches companion files. */
export function uriFileName(uri: string): string {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // a malformed escape: matched as written
  }
  return decoded.split(/[/\\]/).pop() ?? '';
}

/** The bytes of a `data:` URI (base64 or percent-encoded), or null when it is malformed. */
function dataUriBytes(uri: string): Uint8Array | null {
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const body = uri.slice(comma + 1);
  try {
    if (/;base64$/i.test(uri.slice(0, comma))) {
      const text = atob(body);
      const out = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
      return out;
    }
    return new TextEncoder().encode(decodeURIComponent(body));
  } catch {
    return null;
  }
}

/**
 * Width and height of a PNG, JPEG, WebP or GIF image from its header (no decoding), or null when the format
 * is none of these or the header is cut short. Layouts: PNG IHDR (ISO/IEC 15948 §11.2.2), JPEG SOFn
 * segments (ITU T.81 §B.2.2), WebP VP8/VP8L/VP8X headers (RFC 9649), GIF logical screen descriptor (GIF89a §18).
 */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const u16be = (i: number) => (b[i] << 8) | b[i + 1];
  const u16le = (i: number) => b[i] | (b[i + 1] << 8);
  const u32be = (i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
  const ascii = (i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR')
    return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && ascii(0, 4) === 'GIF8') return { width: u16le(6), height: u16le(8) };
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const kind = ascii(12, 4);
    if (kind === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (kind === 'VP8L')
      return {
        width: 1 + (((b[22] & 0x3f) << 8) | b[21]),
        height: 1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6)),
      };
    if (kind === 'VP8X')
      return {
        width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)),
        height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)),
      };
    return null;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const m = b[i + 1];
      if (m === 0xff) {
        i++; // fill byte
        continue;
      }
      const standalone = m === 0x01 || (m >= 0xd0 && m <= 0xd8);
      if (standalone) {
        i += 2;
        continue;
      }
      // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC)
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc)
        return { width: u16be(i + 7), height: u16be(i + 5) };
      i += 2 + u16be(i + 2);
    }
    return null;
  }
  return null;
}

/** The JSON and BIN chunk of GLB bytes, or of `.gltf` JSON bytes (no BIN); null when neither parses. */
function splitGltf(bytes: ArrayBuffer): { json: GltfJson; bin: Uint8Array | null; glb: boolean } | null {
  const view = new DataView(bytes);
  try {
    if (bytes.byteLength >= 20 && view.getUint32(0, true) === GLB_MAGIC) {
      const jsonLength = view.getUint32(12, true);
      if (view.getUint32(16, true) !== CHUNK_JSON || 20 + jsonLength > bytes.byteLength) return null;
      const json = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 20, jsonLength))) as GltfJson;
      let bin: Uint8Array | null = null;
      const at = 20 + jsonLength;
      if (at + 8 <= bytes.byteLength && view.getUint32(at + 4, true) === CHUNK_BIN) {
        const n = view.getUint32(at, true);
        if (at + 8 + n > bytes.byteLength) return null;
        bin = new Uint8Array(bytes, at + 8, n);
      }
      return { json, bin, glb: true };
    }
    const json = JSON.parse(new TextDecoder().decode(bytes)) as GltfJson;
    return typeof json === 'object' && json !== null ? { json, bin: null, glb: false } : null;
  } catch {
    return null;
  }
}

/** GLB bytes with a new JSON chunk and the BIN chunk as it was (glTF 2.0 §4.4: chunks padded to 4 bytes). */
function joinGlb(json: GltfJson, bin: Uint8Array | null): ArrayBuffer {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = Math.ceil(text.length / 4) * 4;
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  if (bin) {
    const at = 20 + jsonLength;
    view.setUint32(at, binLength, true);
    view.setUint32(at + 4, CHUNK_BIN, true);
    out.set(bin, at + 8);
  }
  return out.buffer;
}

const mpx = (n: number) => `${(n / 1e6).toFixed(1)} Mpx`;

/**
 * Checks a .glb or .gltf before three's GLTFLoader reads it in the page, and returns the bytes it may read:
 * - a buffer or image URI that is neither a `data:` URI nor the name of a file opened with it
 *   (`resources`, by file name) is never fetched: an image is replaced by a grey placeholder, a buffer
 *   stops the mesh from loading (`bytes` null), each with a warning naming the URI;
 * - an image larger than {@link MAX_TEXTURE_PIXELS}, one that would take the file's textures past
 *   {@link MAX_TOTAL_TEXTURE_PIXELS}, or one whose size its header does not tell (formats other than PNG,
 *   JPEG, WebP and GIF) is replaced by the placeholder before anything decodes it, with a warning;
 * - `keys` counts the keys of every animation sampler from the JSON alone, for the key budgets.
 * Bytes that parse as neither GLB nor glTF JSON give `bytes` null (the worker's reader reports why).
 */
export function guardGltf(bytes: ArrayBuffer, resources: Record<string, ArrayBuffer>): GuardedGltf {
  const split = splitGltf(bytes);
  if (!split) return { bytes: null, warnings: [], keys: 0 };
  const { json, bin } = split;
  const warnings: string[] = [];
  const companion = (uri: string): Uint8Array | null => {
    const data = resources[uriFileName(uri)];
    return data ? new Uint8Array(data) : null;
  };
  let keys = 0;
  for (const a of json.animations ?? [])
    for (const s of a.samplers ?? []) keys += json.accessors?.[s.input ?? -1]?.count ?? 0;
  // buffers: the GLB's BIN chunk, data URIs and companion files; anything else is not fetched
  let meshLoads = true;
  const buffers: (Uint8Array | null)[] = (json.buffers ?? []).map((b, i) => {
    if (b.uri === undefined) return i === 0 ? bin : null;
    if (b.uri.startsWith('data:')) return dataUriBytes(b.uri);
    const data = companion(b.uri);
    if (!data) {
      warnings.push(
        `buffer ${i} ('${b.uri}') is not among the files opened with it and is not fetched: ` +
          'the mesh is not drawn (open the .gltf together with its .bin)',
      );
      meshLoads = false;
    }
    return data;
  });
  // images: sizes from their headers, over-budget or unreachable ones replaced by the placeholder
  let changed = false;
  let total = 0;
  for (const [i, img] of (json.images ?? []).entries()) {
    const label = `image ${i}${img.name ? ` '${img.name}'` : ''}`;
    let data: Uint8Array | null = null;
    if (img.uri !== undefined) {
      if (img.uri.startsWith('data:')) data = dataUriBytes(img.uri);
      else {
        data = companion(img.uri);
        if (!data)
          warnings.push(
            `${label} ('${img.uri}') is not among the files opened with it and is not fetched: drawn as a grey placeholder`,
          );
      }
    } else if (img.bufferView !== undefined) {
      const v = json.bufferViews?.[img.bufferView];
      const buffer = v ? buffers[v.buffer ?? -1] : null;
      const start = v?.byteOffset ?? 0;
      if (buffer && v && start + (v.byteLength ?? 0) <= buffer.length)
        data = buffer.subarray(start, start + (v.byteLength ?? 0));
    }
    let drop = data === null && img.uri !== undefined && !img.uri.startsWith('data:');
    if (data) {
      const size = imageSize(data);
      const pixels = size ? size.width * size.height : 0;
      if (!size) {
        warnings.push(
          `${label}: its size cannot be read from its header (PNG, JPEG, WebP and GIF are read), ` +
            'so it is not decoded: drawn as a grey placeholder',
        );
        drop = true;
      } else if (pixels > MAX_TEXTURE_PIXELS) {
        warnings.push(
          `${label} is ${size.width} x ${size.height} (${mpx(pixels)}), above the studio's texture budget of ` +
            `4096 x 4096 (${mpx(MAX_TEXTURE_PIXELS)}): not decoded, drawn as a grey placeholder`,
        );
        drop = true;
      } else if (total + pixels > MAX_TOTAL_TEXTURE_PIXELS) {
        warnings.push(
          `${label} is ${size.width} x ${size.height} (${mpx(pixels)}); with the textures before it the file ` +
            `would pass the studio's budget of ${mpx(MAX_TOTAL_TEXTURE_PIXELS)} in all: not decoded, drawn as a grey placeholder`,
        );
        drop = true;
      } else total += pixels;
    }
    if (drop) {
      img.uri = PLACEHOLDER_PNG;
      delete img.bufferView;
      delete img.mimeType;
      changed = true;
    }
  }
  if (!meshLoads) return { bytes: null, warnings, keys };
  if (!changed) return { bytes: bytes.slice(0), warnings, keys };
  const out = split.glb
    ? joinGlb(json, bin)
    : (new TextEncoder().encode(JSON.stringify(json)).buffer as ArrayBuffer);
  return { bytes: out, warnings, keys };
}
