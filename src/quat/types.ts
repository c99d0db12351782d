/** Anything indexable that holds the numbers of a quaternion, vector or matrix (read-only use). */
export type QuatLike = ArrayLike<number>;

/** A writable array kernels write into. */
export type QuatOut = Float64Array | Float32Array | number[];
