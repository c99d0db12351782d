import { describe, expect, it } from 'vitest';

/**
 * The build's two-pair loops (expandPairs in scripts/build_simd.mjs) on a small module of their own: a loop
 * over pairs with a per-pair temporary, a running total shared by the pairs, a store per pair, a flag list
 * indexed by the pair and a block dropped for a zero local, assembled with and without the @paired comment,
 * must compute the same for every pair count.
 */
const LOOP = `(module
  (import "env" "memory" (memory 1))
  (func (export "run") (param $in i32) (param $out i32) (param $flags i32) (param $pairs i32) (param $skip i32)
    (result f64)
    (local $p i32) (local $count i32) (local $a v128) (local $b v128) (local $total v128)
    ;;PAIRED
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $p) (local.get $pairs)))
        (local.set $a (v128.load offset=16 (local.get $in)))
        (local.set $b (f64x2.add (v128.load (local.get $in)) (f64x2.mul (local.get $a) (local.get $a))))
        (if (local.get $skip) (then (local.set $b (f64x2.neg (local.get $b)))))
        (local.set $total (f64x2.add (local.get $total) (local.get $b)))
        (v128.store offset=8 (local.get $out) (local.get $b))
        (if (f64.gt (f64x2.extract_lane 0 (local.get $b)) (f64.const 1))
          (then
            (i32.store (i32.add (local.get $flags) (i32.shl (local.get $count) (i32.const 2))) (local.get $p))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $in (i32.add (local.get $in) (i32.const 32)))
        (local.set $out (i32.add (local.get $out) (i32.const 24)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pair)))
    (f64.add
      (f64.add (f64x2.extract_lane 0 (local.get $total)) (f64x2.extract_lane 1 (local.get $total)))
      (f64.convert_i32_u (local.get $count)))))`;

interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}

async function build(paired: boolean) {
  const script = '../../../scripts/build_simd.mjs';
  const { expandPairs } = (await import(script)) as { expandPairs(text: string): string };
  const wabt = (await import('wabt')).default;
  const tool = await wabt();
  const text = LOOP.replace(';;PAIRED', paired ? ';; @paired in=32 out=24 zero=$skip' : '');
  const parsed = tool.parseWat('loop.wat', expandPairs(text), { simd: true });
  const bytes = parsed.toBinary({}).buffer;
  parsed.destroy();
  // the core's TypeScript settings have no DOM types, so WebAssembly is read as simd.ts reads it
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const memory = new wasm.Memory({ initial: 1, maximum: 1 });
  const instance = new wasm.Instance(new wasm.Module(bytes), { env: { memory } });
  return { run: instance.exports.run as (...a: number[]) => number, memory };
}

describe('expandPairs: a loop taken two pairs at a time computes what the loop does', () => {
  it('for 0 to 7 pairs, with and without the zero local set, with the same stores, flags and totals', async () => {
    const plain = await build(false);
    const paired = await build(true);
    expect(paired.run).not.toBe(plain.run);
    for (let pairs = 0; pairs <= 7; pairs++)
      for (const skip of [0, 1]) {
        const results = [plain, paired].map(({ run, memory }) => {
          const f = new Float64Array(memory.buffer);
          f.fill(-7);
          for (let i = 0; i < pairs * 4; i++) f[i] = Math.sin(1.7 * i + pairs) * 1.5;
          const total = run(0, 1024, 4096, pairs, skip);
          return {
            total,
            out: Array.from(f.subarray(128, 128 + pairs * 3 + 2)),
            flags: Array.from(new Int32Array(memory.buffer, 4096, 8)),
          };
        });
        expect(results[1]).toEqual(results[0]);
      }
  });

  it('refuses a @paired comment that does not stand just before a loop over the pairs', async () => {
    const script = '../../../scripts/build_simd.mjs';
    const { expandPairs } = (await import(script)) as { expandPairs(text: string): string };
    expect(() => expandPairs(LOOP.replace(';;PAIRED', ';; @paired in=32\n    (nop)'))).toThrow(/just before/);
    const other = LOOP.replace(';;PAIRED', ';; @paired in=32').replace(
      '(br_if $done (i32.ge_u',
      '(br_if $done (i32.gt_u',
    );
    expect(() => expandPairs(other)).toThrow(/must start with/);
  });
});
