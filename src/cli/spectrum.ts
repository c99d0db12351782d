import type { SpectrumSummary } from '../pipeline/steps.js';
import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  numberOption,
  oneOf,
  TABLE_OUTPUT_OPTIONS,
  UsageError,
} from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { escapeControl, escapeLines } from './text.js';

/** `rotsig spectrum`: frequency content of a clip. */
export const spectrum: Command = {
  name: 'spectrum',
  summary: "the clip's maximum spectrum in dB, as an SVG plot, CSV or JSON",
  usage: 'rotsig spectrum <file|dir>... [-o spectrum.svg|.csv|.json|dir] [--share 0.99]',
  description: `
Computes the magnitude spectrum of every joint's continuous rotation channels (clipSpectrum: Euler
curves unrolled with the equivalent-triple filter, Hann window, mean removed) and keeps, per frequency,
the maximum over joints and channels, in dB re 1 radian. Reports the frequency below which --share of
the energy lies and the lowest sample rate that keeps it (twice that: Nyquist).
Without -o, prints that summary on stdout. With -o, writes a plot a browser can open (.svg: axes,
labels and the energy line), or the numbers (.csv: frequency_hz,max_db,power; .json).`,
  examples: [
    'rotsig spectrum take.bvh',
    'rotsig spectrum take.bvh -o take-spectrum.svg',
    'rotsig spectrum captures/ -o spectra/ --format svg',
  ],
  inputs: CLIP_IO,
  outputs: ['svg', 'csv', 'json'],
  options: {
    share: {
      type: 'string',
      value: 'x',
      description: 'energy share for the reported frequency, 0 < x < 1 (default 0.99)',
    },
    channels: {
      type: 'string',
      value: 'kind',
      description: 'euler or quaternion rotation channels (default euler)',
    },
    translations: { type: 'boolean', description: 'include the translation channels' },
    format: {
      type: 'string',
      value: 'fmt',
      description: 'svg, csv or json (default: from the -o extension, else svg)',
    },
    ...TABLE_OUTPUT_OPTIONS,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const v = parsed.values;
    const shareText = v.share as string | undefined;
    const share = numberOption(shareText, '--share', { min: -Infinity, max: Infinity }, 0.99);
    if (!(share > 0 && share < 1))
      throw new UsageError(`--share must be a number between 0 and 1, got '${shareText}'`);
    const channels = oneOf(
      v.channels as string | undefined,
      'channels',
      ['euler', 'quaternion'] as const,
      'euler',
    );
    const out = v.output as string | undefined;
    const fromExt = out?.match(/\.(svg|csv|json)$/i)?.[1].toLowerCase() as 'svg' | 'csv' | 'json' | undefined;
    const format = oneOf(
      v.format as string | undefined,
      'format',
      ['svg', 'csv', 'json'] as const,
      fromExt ?? 'svg',
    );
    const writes = out !== undefined;
    return runFileCommand(parsed, io, {
      command: 'spectrum',
      steps: [],
      emit: {
        kind: 'spectrum',
        format: writes ? format : 'none',
        share,
        channels,
        include: v.translations === true ? 'all' : 'rotations',
      },
      outputs: writes ? 'file' : 'none',
      extension: `.${format}`,
      report(results, o) {
        if (writes) return;
        const ok = results.filter((r) => r.ok);
        if (v.json === true) {
          const items = ok.map((r) => ({ file: r.input, ...(r.data as SpectrumSummary) }));
          o.stdout.write(
            `${JSON.stringify(items.length === 1 && results.length === 1 ? items[0] : items, null, 2)}\n`,
          );
          return;
        }
        for (const r of ok) {
          const s = r.data as SpectrumSummary;
          o.stdout.write(
            escapeLines(
              `${escapeControl(r.input)}: ${round(s.share * 100)}% of the rotation energy below ${round(s.energyFrequency)} Hz; lowest safe rate ${round(s.safeRate)} Hz (sampled at ${round(s.rate)} Hz); strongest: ${s.peaks.map((p) => `${round(p.hz)} Hz (${round(p.db)} dB)`).join(', ')}\n`,
            ),
          );
        }
      },
    });
  },
};

function round(x: number): number {
  return Number(x.toFixed(2));
}
