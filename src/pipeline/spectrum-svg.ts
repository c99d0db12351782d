/** Input of {@link renderSpectrumSvg}: a magnitude spectrum in dB on a frequency axis. */
export interface SpectrumPlot {
  /** Frequencies in Hz, increasing. */
  frequencies: ArrayLike<number>;
  /** Magnitudes in dB, one per frequency. */
  db: ArrayLike<number>;
  /** Frequency (Hz) below which `share` of the energy lies, drawn as a dashed line. */
  energyFrequency?: number;
  /** Share of energy the line stands for (0.99 -> "99%"). */
  share?: number;
  /** Sample rate of the clip (Hz), stated in the subtitle. */
  rate?: number;
  /** Title, usually the file name. */
  title?: string;
  /** Dynamic range shown below the peak, in dB. Default 90. */
  range?: number;
}

const W = 800;
const H = 450;
const M = { left: 70, right: 24, top: 56, bottom: 56 };

/**
 * Renders a spectrum as a standalone SVG document a browser can open: frequency axis in Hz, magnitude axis
 * in dB with grid lines and labels, the curve, and the energy-share frequency as a labelled dashed line.
 * No scripts, no external resources.
 *
 * @example
 * const s = clipSpectrum(clip);
 * const plot = { frequencies: s.frequencies, db: s.maxDb, energyFrequency: s.energyFrequency, share: s.energyShare };
 * writeFileAtomic('out/spectrum.svg', renderSpectrumSvg(plot));
 */
export function renderSpectrumSvg(plot: SpectrumPlot): string {
  const n = Math.min(plot.frequencies.length, plot.db.length);
  const fMax = n > 0 ? plot.frequencies[n - 1] || 1 : 1;
  let peak = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) if (Number.isFinite(plot.db[i]) && plot.db[i] > peak) peak = plot.db[i];
  if (!Number.isFinite(peak)) peak = 0;
  const top = Math.ceil(peak / 10) * 10;
  const bottom = top - (plot.range ?? 90);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (f: number) => M.left + (pw * f) / fMax;
  const y = (db: number) => M.top + (ph * (top - Math.max(bottom, Math.min(top, db)))) / (top - bottom);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  );
  out.push(
    `<text x="${M.left}" y="22" font-size="16" font-weight="600">${esc(plot.title ?? 'Spectrum')}</text>`,
  );
  const sub = [
    'maximum over joints and channels, Hann window',
    plot.rate ? `sampled at ${fmtNum(plot.rate)} Hz` : '',
  ].filter(Boolean);
  out.push(`<text x="${M.left}" y="40" fill="#555">${esc(sub.join(', '))}</text>`);
  // Grid and axes.
  for (let db = top; db >= bottom; db -= 10) {
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${r(y(db))}" y2="${r(y(db))}" stroke="#e5e5e5"/>`,
      `<text x="${M.left - 8}" y="${r(y(db) + 4)}" text-anchor="end">${db}</text>`,
    );
  }
  for (const f of ticks(fMax)) {
    out.push(
      `<line x1="${r(x(f))}" x2="${r(x(f))}" y1="${M.top}" y2="${M.top + ph}" stroke="#eeeeee"/>`,
      `<text x="${r(x(f))}" y="${M.top + ph + 18}" text-anchor="middle">${fmtNum(f)}</text>`,
    );
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`,
    `<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">frequency (Hz)</text>`,
    `<text transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">magnitude (dB re 1 rad)</text>`,
  );
  // Curve.
  if (n > 0) {
    const pts: string[] = [];
    for (let i = 0; i < n; i++)
      pts.push(`${r(x(plot.frequencies[i]))},${r(y(finiteOr(plot.db[i], bottom)))}`);
    out.push(`<polyline fill="none" stroke="#1f5fbf" stroke-width="1.5" points="${pts.join(' ')}"/>`);
  }
  // Energy line.
  if (plot.energyFrequency !== undefined && Number.isFinite(plot.energyFrequency)) {
    const fx = r(x(Math.min(plot.energyFrequency, fMax)));
    const pct = `${fmtNum((plot.share ?? 0.99) * 100)}%`;
    const label = `${pct} of energy below ${fmtNum(plot.energyFrequency)} Hz (safe rate ${fmtNum(2 * plot.energyFrequency)} Hz)`;
    const anchor = x(plot.energyFrequency) > M.left + pw * 0.6 ? 'end' : 'start';
    const dx = anchor === 'end' ? -6 : 6;
    out.push(
      `<line x1="${fx}" x2="${fx}" y1="${M.top}" y2="${M.top + ph}" stroke="#c0392b" stroke-width="1.5" stroke-dasharray="6 4"/>`,
      `<text x="${r(Number(fx) + dx)}" y="${M.top + 16}" fill="#c0392b" text-anchor="${anchor}">${esc(label)}</text>`,
    );
  }
  out.push('</svg>', '');
  return out.join('\n');
}

/** About 8 round tick values from 0 to `max`. */
function ticks(max: number): number[] {
  const raw = max / 8;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max * (1 + 1e-9); v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function fmtNum(v: number): string {
  return Number(v.toPrecision(4)).toString();
}

function r(v: number): string {
  return v.toFixed(1);
}

function finiteOr(v: number, fallback: number): number {
  return Number.isFinite(v) ? v : fallback;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
