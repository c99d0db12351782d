/** Named tolerance tiers, so tests say which accuracy they claim rather than scattering literals. */
export const TOL = {
  /** Float64 kernels: a few ulps of accumulated rounding. */
  f64: 1e-12,
  /** Comparisons against SciPy fixtures that went through text (JSON with 17 significant digits). */
  oracle: 1e-12,
  /** Float32 paths. */
  f32: 1e-6,
} as const;
