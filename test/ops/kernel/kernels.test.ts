import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

interface Fixture {
  kernels: { x: number[]; values: Record<string, number[]> };
}
const fx = readFixture<Fixture>('filter.json');

const all: [string, kernels.Kernel][] = [
  ['box', kernels.box],
  ['tent', kernels.tent],
  ['gaussian(1.5)', kernels.gaussian(1.5)],
  ['catmullRom', kernels.catmullRom],
  ['cubic6', kernels.cubic6],
  ['sinc()', kernels.sinc()],
  ['lanczos(3)', kernels.lanczos(3)],
  ['unsharp(gaussian(2), 0.8)', kernels.unsharp(kernels.gaussian(2), 0.8)],
  ['sampled([1, 3, 2])', kernels.sampled([1, 3, 2])],
  ['scaleKernel(cubic6, 2.5)', kernels.scaleKernel(kernels.cubic6, 2.5)],
  ['composeKernels(gaussian(1), tent)', kernels.composeKernels(kernels.gaussian(1), kernels.tent)],
];

/** Trapezoid integral of k over its support. */
function area(k: kernels.Kernel, h = 1e-3): number {
  let s = 0;
  const r = k.radius;
  for (let x = -r; x <= r + 1e-12; x += h)
    s += k.evaluate(x) * (Math.abs(x - -r) < 1e-12 || x > r - h / 2 ? 0.5 : 1);
  return s * h;
}

describe('kernels', () => {
  it('kernels.<k>.evaluate(x) matches the formulas typed in independently (Python fixture)', () => {
    const cases: [string, kernels.Kernel][] = [
      ['catmullRom', kernels.catmullRom],
      ['cubic6', kernels.cubic6],
      ['lanczos2', kernels.lanczos(2)],
      ['lanczos3', kernels.lanczos(3)],
      ['sinc3', kernels.sinc({ radius: 3 })],
      ['gaussian1.5', kernels.gaussian(1.5)],
    ];
    for (const [name, k] of cases) {
      const expected = fx.kernels.values[name];
      fx.kernels.x.forEach((x, i) => {
        expect(Math.abs(k.evaluate(x) - expected[i]), `${name}(${x})`).toBeLessThan(TOL.oracle);
      });
    }
  });

  it.each(all)('%s is zero outside its radius and its derivative matches central differences', (_, k) => {
    for (const x of [k.radius + 1e-9, -k.radius - 1e-9, k.radius + 1.5]) expect(k.evaluate(x)).toBe(0);
    if (!k.derivative) return;
    const h = 1e-6;
    for (let x = -k.radius + 0.013; x < k.radius; x += 0.0731) {
      const fd = (k.evaluate(x + h) - k.evaluate(x - h)) / (2 * h);
      const near = Math.abs(x - Math.round(x)) < 1e-4 || Math.abs(x * 2 - Math.round(x * 2)) < 1e-4;
      if (near) continue; // kinks of piecewise kernels sit on integers and half-integers
      expect(Math.abs(k.derivative(x) - fd), `${k.name}'(${x})`).toBeLessThan(1e-6);
    }
  });

  it('interpolating kernels are 1 at 0 and 0 at the other integers', () => {
    for (const k of [kernels.tent, kernels.catmullRom, kernels.cubic6, kernels.sinc(), kernels.lanczos(3)]) {
      expect(k.evaluate(0)).toBe(1);
      for (let i = 1; i <= Math.floor(k.radius); i++) {
        expect(Math.abs(k.evaluate(i))).toBeLessThan(1e-15);
        expect(Math.abs(k.evaluate(-i))).toBeLessThan(1e-15);
      }
    }
  });

  it('gaussian(sigma) has unit area and SciPy radius floor(truncate·sigma + 0.5)', () => {
    expect(kernels.gaussian(2).radius).toBe(6);
    expect(kernels.gaussian(1.5).radius).toBe(5);
    expect(kernels.gaussian(2, { truncate: 4 }).radius).toBe(8);
    expect(area(kernels.gaussian(1, { truncate: 8 }))).toBeCloseTo(1, 8);
  });

  it('scaleKernel(k, f) keeps the area and widens the radius', () => {
    for (const k of [kernels.tent, kernels.cubic6, kernels.gaussian(1, { truncate: 8 })]) {
      const s = kernels.scaleKernel(k, 2.5);
      expect(s.radius).toBeCloseTo(2.5 * k.radius, 14);
      expect(area(s)).toBeCloseTo(area(k), 6);
      expect(s.evaluate(1.25)).toBeCloseTo(k.evaluate(0.5) / 2.5, 15);
    }
  });

  it('unsharp(base, amount) is (1 + amount)·δ − amount·base at the integers (negative lobes)', () => {
    const g = kernels.gaussian(2);
    const u = kernels.unsharp(g, 1.5);
    expect(u.evaluate(0)).toBeCloseTo(2.5 - 1.5 * g.evaluate(0), 15);
    for (let i = 1; i <= 6; i++) {
      expect(u.evaluate(i)).toBeCloseTo(-1.5 * g.evaluate(i), 15);
      expect(u.evaluate(i)).toBeLessThan(0);
    }
  });

  it('sampled(weights) puts weight i at offset i − (n − 1)/2 and interpolates linearly between', () => {
    const k = kernels.sampled([1, 3, 2]);
    expect([k.evaluate(-1), k.evaluate(0), k.evaluate(1), k.evaluate(2)]).toEqual([1, 3, 2, 0]);
    expect(k.evaluate(0.5)).toBe(2.5);
    expect(k.radius).toBe(2);
    const even = kernels.sampled([1, 1]);
    expect([even.evaluate(-0.5), even.evaluate(0.5), even.evaluate(0)]).toEqual([1, 1, 1]);
  });

  it('kernel factories reject bad parameters with OptionError', () => {
    expect(() => kernels.gaussian(0)).toThrow(OptionError);
    expect(() => kernels.gaussian(Number.NaN)).toThrow(OptionError);
    expect(() => kernels.gaussian(1, { truncate: -1 })).toThrow(OptionError);
    expect(() => kernels.lanczos(-2)).toThrow(OptionError);
    expect(() => kernels.sinc({ radius: 0 })).toThrow(OptionError);
    expect(() => kernels.sampled([])).toThrow(OptionError);
    expect(() => kernels.sampled([1, Number.NaN])).toThrow(OptionError);
    expect(() => kernels.scaleKernel(kernels.tent, 0)).toThrow(OptionError);
    expect(() => kernels.unsharp(kernels.tent, Number.POSITIVE_INFINITY)).toThrow(OptionError);
    expect(() => kernels.composeKernels(kernels.tent, {} as kernels.Kernel)).toThrow(OptionError);
  });
});

describe('composeKernels(a, b)', () => {
  it('composeKernels(gaussian(s1), gaussian(s2)) = gaussian(√(s1² + s2²)) numerically', () => {
    for (const [s1, s2] of [
      [1, 1.5],
      [2, 2],
      [1.2, 3],
    ]) {
      const c = kernels.composeKernels(
        kernels.gaussian(s1, { truncate: 9 }),
        kernels.gaussian(s2, { truncate: 9 }),
      );
      const g = kernels.gaussian(Math.hypot(s1, s2), { truncate: 9 });
      let worst = 0;
      for (let x = -8; x <= 8; x += 0.0625) worst = Math.max(worst, Math.abs(c.evaluate(x) - g.evaluate(x)));
      // Poisson summation: the unit-step sum over k of a(k)·b(x − k) (a Gaussian in k of σₑ = s1·s2/√(s1² + s2²))
      // equals the integral up to ~2·exp(−2π²σₑ²) relative: 2.3e-6 for (1, 1.5), 4e-17 for (2, 2)
      const se2 = (s1 * s1 * s2 * s2) / (s1 * s1 + s2 * s2);
      expect(worst / g.evaluate(0)).toBeLessThan(3 * Math.exp(-2 * Math.PI * Math.PI * se2) + 1e-14);
    }
  });

  it('composeKernels is associative', () => {
    const a = kernels.gaussian(1.1);
    const b = kernels.cubic6;
    const c = kernels.lanczos(2);
    const left = kernels.composeKernels(kernels.composeKernels(a, b), c);
    const right = kernels.composeKernels(a, kernels.composeKernels(b, c));
    expect(left.radius).toBe(right.radius);
    for (let x = -left.radius; x <= left.radius; x += 0.1) {
      expect(Math.abs(left.evaluate(x) - right.evaluate(x))).toBeLessThan(1e-15);
    }
  });

  it('composeKernels(tent, tent) samples to the binomial [1, 2, 1]/… at the integers', () => {
    // filtering twice by a tent at integer centres is the identity, so the composite is δ at the integers
    const c = kernels.composeKernels(kernels.tent, kernels.tent);
    expect([c.evaluate(-1), c.evaluate(0), c.evaluate(1)]).toEqual([0, 1, 0]);
    const d = kernels.composeKernels(kernels.sampled([1, 2, 1]), kernels.sampled([1, 2, 1]));
    expect([-2, -1, 0, 1, 2].map((x) => d.evaluate(x))).toEqual([1, 4, 6, 4, 1]);
    // its derivative follows b's
    expect(d.derivative).toBeTypeOf('function');
  });
});

describe('a kernel’s evaluate and derivative on positions that are no finite number', () => {
  const all: kernels.Kernel[] = [
    kernels.box,
    kernels.tent,
    kernels.catmullRom,
    kernels.cubic6,
    kernels.gaussian(2),
    kernels.sinc(),
    kernels.lanczos(3),
    kernels.unsharp(kernels.gaussian(1), 0.5),
    kernels.sampled([1, 2, 1]),
    kernels.scaleKernel(kernels.lanczos(3), 4),
    kernels.composeKernels(kernels.gaussian(2), kernels.tent),
  ];
  it.each(all.map((k) => [k.name, k] as const))(
    '%s: NaN or a value that is no number throws InvalidValueError; ±∞ lie outside the support (0)',
    (_, k) => {
      for (const method of ['evaluate', 'derivative'] as const) {
        const f = k[method];
        if (f === undefined) continue;
        for (const bad of [Number.NaN, 'x', undefined, null, {}, Symbol('s')]) {
          expect(() => f.call(k, bad as unknown as number), `${method}(${String(bad)})`).toThrow(
            InvalidValueError,
          );
        }
        for (const far of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, -1e308])
          expect(f.call(k, far) + 0, `${method}(${far})`).toBe(0);
        expect(Number.isFinite(f.call(k, 0.3)), `${method}(0.3)`).toBe(true);
      }
    },
  );
});
