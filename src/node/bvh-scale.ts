// The factor from BVH units to glTF metres when a BVH clip becomes glTF, apart from the glTF task so the
// command line can name it in its help without loading the glTF code.

/**
 * Default factor from BVH units to glTF metres when a BVH clip becomes glTF: 0.01, since most BVH
 * exporters (Mixamo, Rokoko, Axis Neuron, Bandai-Namco, LAFAN1) write centimetres and glTF is in metres.
 */
export const BVH_TO_GLTF_SCALE = 0.01;
