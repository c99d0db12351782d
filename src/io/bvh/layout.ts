/**
 * The BVH layout of a clip: each joint's CHANNELS, the End Sites, the position mode and the frame-time
 * text. A clip read from BVH carries its file's layout in `clip.source`; any other clip (glTF, NumPy,
 * made in code) gets a derived one.
 *
 * @module
 */

import {
  ANIMATED_TRANSLATION,
  type ChannelName,
  type Clip,
  type EndSite,
  type PositionMode,
} from '../../series/clip.js';
import { bvhSourceOf } from '../../series/clip-create.js';

/**
 * Nesting limit of JOINT blocks, for reading and writing: far beyond real skeletons, it keeps hostile input
 * from overflowing the reader's stack, and a chain of nodes (glTF) from becoming a file of indentation
 * (its text grows with the square of the depth).
 */
export const BVH_MAX_DEPTH = 1000;

/** What the BVH writer writes besides the clip's numbers. */
export interface BvhLayout {
  /** Per joint, its channels in file order. */
  channels: ChannelName[][];
  endSites: EndSite[];
  positionMode: PositionMode;
  /** The frame time as text, when the source wrote one that still reads back to the clip's `frameTime`. */
  frameTimeText?: string;
}

/**
 * The layout the BVH writer uses for `clip`: its BVH source's when it has one; otherwise derived: every
 * joint gets three rotation channels in its Euler order (`clip.orders`), so non-identity rest rotations
 * are folded into the channels, and every joint with an animated translation gets three position
 * channels first (`'replace'` mode); no End Sites. Scales have no BVH channel and are not written.
 */
export function bvhLayout(clip: Clip): BvhLayout {
  const source = bvhSourceOf(clip);
  if (source !== undefined) {
    const frameTimeText =
      source.frameTimeText !== undefined &&
      (Number(source.frameTimeText) === clip.frameTime || source.frameTime === clip.frameTime)
        ? source.frameTimeText
        : undefined;
    return {
      channels: source.channels,
      endSites: source.endSites,
      positionMode: source.positionMode === 'add' ? 'add' : 'replace',
      ...(frameTimeText !== undefined ? { frameTimeText } : {}),
    };
  }
  const J = clip.skeleton.names.length;
  const channels: ChannelName[][] = [];
  for (let j = 0; j < J; j++) {
    const list: ChannelName[] = [];
    if (clip.animated[j] & ANIMATED_TRANSLATION) list.push('Xposition', 'Yposition', 'Zposition');
    const order = clip.orders[j].toUpperCase();
    for (const axis of order) list.push(`${axis}rotation` as ChannelName);
    channels.push(list);
  }
  return { channels, endSites: [], positionMode: 'replace' };
}
