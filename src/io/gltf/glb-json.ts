// The JSON and the GLB container the writer emits: what glTF-Transform's writer leaves out put back (image
// URIs of missing files, node transforms near the default), and the GLB chunks.
import type { Document, GLTF, Node } from '@gltf-transform/core';

/** Image definitions of textures whose file was missing keep their URI (glTF-Transform drops it). */
export function keepImageUris(
  json: GLTF.IGLTF,
  textures: ReturnType<ReturnType<Document['getRoot']>['listTextures']>,
): void {
  const images = json.images ?? [];
  textures.forEach((texture, i) => {
    const def = images[i];
    if (def && def.uri === undefined && def.bufferView === undefined && texture.getURI())
      def.uri = texture.getURI();
  });
}

/**
 * Node definitions keep every translation, rotation and scale that is not exactly the default.
 * glTF-Transform's writer leaves out a value within 1e-5 of the default, which moves what hangs below
 * it: gltfpack's RobotExpressive has leg bones scaled 0.999993 with meshes 3.3 m (dequantisation
 * offsets) below them, and writing the file back without those scales moved the meshes by 10 µm,
 * more than the bound `reduce` states on other nodes. `nodes` in the order glTF-Transform writes them.
 */
export function keepNodeTransforms(json: GLTF.IGLTF, nodes: readonly Node[]): void {
  const defs = json.nodes ?? [];
  nodes.forEach((node, i) => {
    const def = defs[i];
    if (def === undefined || def.matrix !== undefined) return;
    const t = node.getTranslation();
    const r = node.getRotation();
    const s = node.getScale();
    if (def.translation === undefined && (t[0] !== 0 || t[1] !== 0 || t[2] !== 0)) def.translation = [...t];
    if (def.rotation === undefined && (r[0] !== 0 || r[1] !== 0 || r[2] !== 0 || r[3] !== 1))
      def.rotation = [...r];
    if (def.scale === undefined && (s[0] !== 1 || s[1] !== 1 || s[2] !== 1)) def.scale = [...s];
  });
}

/** GLB container of a JSON chunk and an optional BIN chunk (glTF 2.0 §4.4). */
export function glbBytes(json: GLTF.IGLTF, bin: Uint8Array | undefined): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = (text.length + 3) & ~3;
  const binLength = bin?.byteLength ? (bin.byteLength + 3) & ~3 : 0;
  const total = 12 + 8 + jsonLength + (binLength ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  if (binLength && bin) {
    const o = 20 + jsonLength;
    view.setUint32(o, binLength, true);
    view.setUint32(o + 4, 0x004e4942, true);
    out.set(bin, o + 8);
  }
  return out;
}
