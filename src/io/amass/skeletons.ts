/**
 * The kinematic trees of the SMPL body-model family, as facts: joint names and parents in the order of
 * the models' pose vectors (AMASS `poses`: three axis-angle numbers per joint in this order). Names are
 * those of the `smplx` package (`joint_names.py`); parents those of the models' `kintree_table`.
 *
 * @module
 */

/** A member of the SMPL family: SMPL (24 joints), SMPL+H (52, with hands) or SMPL-X (55, hands and face). */
export type SmplModel = 'smpl' | 'smplh' | 'smplx';

const BODY = [
  'pelvis',
  'left_hip',
  'right_hip',
  'spine1',
  'left_knee',
  'right_knee',
  'spine2',
  'left_ankle',
  'right_ankle',
  'spine3',
  'left_foot',
  'right_foot',
  'neck',
  'left_collar',
  'right_collar',
  'head',
  'left_shoulder',
  'right_shoulder',
  'left_elbow',
  'right_elbow',
  'left_wrist',
  'right_wrist',
];
const BODY_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19];
const FINGERS = ['index', 'middle', 'pinky', 'ring', 'thumb'];

/** Fifteen finger joints of one hand (three per finger, base first) hanging from `wrist`, starting at index `first`. */
function hand(side: 'left' | 'right', wrist: number, first: number): { names: string[]; parents: number[] } {
  const names: string[] = [];
  const parents: number[] = [];
  FINGERS.forEach((finger, i) => {
    for (let k = 1; k <= 3; k++) {
      names.push(`${side}_${finger}${k}`);
      parents.push(k === 1 ? wrist : first + i * 3 + k - 2);
    }
  });
  return { names, parents };
}

const LEFT_H = hand('left', 20, 22);
const RIGHT_H = hand('right', 21, 37);
const LEFT_X = hand('left', 20, 25);
const RIGHT_X = hand('right', 21, 40);

/** SMPL joint names (24): the body, then `left_hand` and `right_hand`. */
export const SMPL_JOINT_NAMES: readonly string[] = [...BODY, 'left_hand', 'right_hand'];
/** SMPL parents (24), `-1` for the pelvis. */
export const SMPL_PARENTS: readonly number[] = [...BODY_PARENTS, 20, 21];
/** SMPL+H joint names (52): the 22 body joints, 15 left-hand, 15 right-hand finger joints. */
export const SMPLH_JOINT_NAMES: readonly string[] = [...BODY, ...LEFT_H.names, ...RIGHT_H.names];
/** SMPL+H parents (52). */
export const SMPLH_PARENTS: readonly number[] = [...BODY_PARENTS, ...LEFT_H.parents, ...RIGHT_H.parents];
/** SMPL-X joint names (55): the 22 body joints, jaw, left and right eye, then both hands. */
export const SMPLX_JOINT_NAMES: readonly string[] = [
  ...BODY,
  'jaw',
  'left_eye_smplhf',
  'right_eye_smplhf',
  ...LEFT_X.names,
  ...RIGHT_X.names,
];
/** SMPL-X parents (55): jaw and eyes hang from the head. */
export const SMPLX_PARENTS: readonly number[] = [
  ...BODY_PARENTS,
  15,
  15,
  15,
  ...LEFT_X.parents,
  ...RIGHT_X.parents,
];

/** Joint count of each model: the `poses` width is three times this (72, 156, 165). */
export const SMPL_JOINT_COUNTS: Readonly<Record<SmplModel, number>> = { smpl: 24, smplh: 52, smplx: 55 };

/**
 * Names and parents of a model's kinematic tree.
 *
 * @example
 * const { names, parents } = smplTree('smplh'); // 52 joints; parents[22] === 20 (left_index1 on left_wrist)
 */
export function smplTree(model: SmplModel): { names: readonly string[]; parents: readonly number[] } {
  if (model === 'smpl') return { names: SMPL_JOINT_NAMES, parents: SMPL_PARENTS };
  if (model === 'smplh') return { names: SMPLH_JOINT_NAMES, parents: SMPLH_PARENTS };
  return { names: SMPLX_JOINT_NAMES, parents: SMPLX_PARENTS };
}
