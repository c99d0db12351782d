// Hostile model files for the studio's end-to-end tests: built here, in Node, from the glTF 2.0 specification's
// layout (no file of the repository is needed).
import { deflateSync } from 'node:zlib';
import { Document, NodeIO } from '@gltf-transform/core';

/** CRC-32 (PNG chunk checksum, ISO 3309 polynomial 0xEDB88320). */
function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (let i = 0; i < bytes.length; i++) {
    c ^= bytes[i];
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * A real, decodable greyscale PNG of `width` x `height` pixels, all one grey level: small on disk (the rows
 * deflate to almost nothing) and `width * height * 4` bytes once a browser decodes it to RGBA.
 */
export function bigPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // colour type: greyscale
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0; // filter byte: none
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** A one-node scene with a textured triangle and a 2-key rotation animation, as a glTF-Transform Document. */
function texturedDocument(png: Uint8Array, imageUri: string): Document {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const pos = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const uv = doc
    .createAccessor()
    .setType('VEC2')
    .setArray(new Float32Array([0, 0, 1, 0, 0, 1]))
    .setBuffer(buffer);
  const texture = doc.createTexture('big').setImage(png).setMimeType('image/png').setURI(imageUri);
  const material = doc.createMaterial('textured').setBaseColorTexture(texture);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', pos)
    .setAttribute('TEXCOORD_0', uv)
    .setMaterial(material);
  const node = doc.createNode('Spinner').setMesh(doc.createMesh('tri').addPrimitive(prim));
  doc.createScene('scene').addChild(node);
  const times = doc
    .createAccessor()
    .setArray(new Float32Array([0, 1]))
    .setBuffer(buffer);
  const values = doc
    .createAccessor()
    .setType('VEC4')
    .setArray(new Float32Array([0, 0, 0, 1, 0, Math.SQRT1_2, 0, Math.SQRT1_2]))
    .setBuffer(buffer);
  const sampler = doc.createAnimationSampler().setInput(times).setOutput(values).setInterpolation('LINEAR');
  doc
    .createAnimation('spin')
    .addSampler(sampler)
    .addChannel(
      doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler),
    );
  return doc;
}

/** A .glb whose one texture is a `size` x `size` PNG (embedded in the BIN chunk). */
export async function bigTextureGlb(size: number): Promise<Uint8Array> {
  return new NodeIO().writeBinary(texturedDocument(bigPng(size, size), 'big.png'));
}

/**
 * A `.gltf` (JSON bytes) with two external URIs on another origin: its buffer at `bufferUri` and its texture
 * at `imageUri`, and the buffer's bytes (to be opened with it, as a companion file, or not).
 */
export async function externalUriGltf(
  bufferUri: string,
  imageUri: string,
): Promise<{ gltf: Uint8Array; bin: Uint8Array }> {
  const doc = texturedDocument(bigPng(2, 2), imageUri);
  doc.getRoot().listBuffers()[0].setURI('model.bin');
  const { json, resources } = await new NodeIO().writeJSON(doc);
  const bin = resources['model.bin'];
  (json.buffers ?? [])[0].uri = bufferUri;
  return { gltf: new TextEncoder().encode(JSON.stringify(json)), bin };
}

/**
 * A .glb with `joints` nodes in a chain, each with a LINEAR rotation track of `keys` keys at 30 Hz (an
 * animation of `joints * keys` keys): the slow-open case of the studio.
 */
export async function manyKeysGlb(joints: number, keys: number): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const times = new Float32Array(keys);
  for (let k = 0; k < keys; k++) times[k] = k / 30;
  const input = doc.createAccessor().setArray(times).setBuffer(buffer);
  const anim = doc.createAnimation('long');
  let parent: ReturnType<Document['createNode']> | null = null;
  const scene = doc.createScene('scene');
  for (let j = 0; j < joints; j++) {
    const node = doc.createNode(`J${j}`).setTranslation([0, j === 0 ? 0 : 0.1, 0]);
    if (parent) parent.addChild(node);
    else scene.addChild(node);
    parent = node;
    const q = new Float32Array(keys * 4);
    for (let k = 0; k < keys; k++) {
      const half = 0.5 * 0.6 * Math.sin(k * 0.05 + j);
      q[k * 4 + 2] = Math.sin(half);
      q[k * 4 + 3] = Math.cos(half);
    }
    const output = doc.createAccessor().setType('VEC4').setArray(q).setBuffer(buffer);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    anim
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler),
      );
  }
  return new NodeIO().writeBinary(doc);
}
