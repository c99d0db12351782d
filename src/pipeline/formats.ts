// Tabular outputs of per-frame features: NumPy-free CSV and JSON writers over frames x joints x width arrays.
import { InvalidValueError } from '../errors.js';
import type { NdArray } from '../io/npy.js';
import type { NpzArrays } from '../io/npz.js';

/** A frames × joints × width array with labels, what `export` and `velocity` write. */
export interface FrameTable {
  /** Flat data, frame-major: value k of joint j at frame f at `(f * joints + j) * width + k`. */
  data: ArrayLike<number>;
  frames: number;
  joints: number;
  width: number;
  /** Joint names (column groups). */
  names: readonly string[];
  /** Component names (`qx qy qz qw`, `x y z`, ...), `width` of them. */
  components: readonly string[];
  /** Frames per second, for the time column and the JSON header. */
  rate: number;
  /** What the values are (`'quat'`, `'angular-velocity'`), stated in JSON. */
  kind: string;
  /** Units, stated in JSON (`'rad/s'`). */
  units?: string;
  /** For 6D rotations: which two matrix vectors they hold (`'columns'` or `'rows'`), stated in JSON and npz. */
  sixd?: 'columns' | 'rows';
}

/**
 * The arrays of a table as `.npz` members: `data` (`frames x joints x width`), `joint_names`,
 * `components` (the names along the last axis), `rate` (frames per second, a 0-d float64), `kind`, and
 * `units` and `sixd` when the table has them, so the archive names its own axes without a sidecar.
 *
 * @example
 * writeNpz(frameTableNpz(table)); // np.load(f)['joint_names'], np.load(f)['rate']
 */
export function frameTableNpz(t: FrameTable): NpzArrays {
  checkFinite(t);
  const data = t.data as Float64Array | Float32Array;
  const text = (value: readonly string[], shape: number[]): NdArray => ({
    data: value.slice(),
    shape,
    dtype: 'str',
  });
  return {
    data: {
      data,
      shape: [t.frames, t.joints, t.width],
      dtype: data instanceof Float32Array ? 'float32' : 'float64',
    },
    joint_names: text(t.names.slice(0, t.joints), [t.joints]),
    components: text(t.components, [t.width]),
    rate: { data: Float64Array.of(t.rate), shape: [], dtype: 'float64' },
    kind: text([t.kind], []),
    ...(t.units ? { units: text([t.units], []) } : {}),
    ...(t.sixd ? { sixd: text([t.sixd], []) } : {}),
  };
}

/**
 * CSV with a header row (`frame,time,<joint>.<component>,...`) and one row per frame, numbers in
 * shortest round-trip form. Yields chunks so large tables stream to disk.
 *
 * Safe to open in a spreadsheet: numeric cells are numbers the writer formats itself (`-0.5`, `1e-7`),
 * which a spreadsheet reads as numbers, never as formulas; text cells (the header, whose joint names come
 * from the input file) that a spreadsheet would take for a formula, those starting with `=`, `+`, `-`,
 * `@`, tab or carriage return, are neutralised as OWASP advises: a `'` is put in front and the cell is
 * quoted (`"'=HYPERLINK(...).qx"`), so the spreadsheet shows it as text. A CSV reader then sees the `'`
 * too; the `.json` output keeps names exact. Cells with a comma, quote or line break are quoted (RFC 4180).
 *
 * @throws {InvalidValueError} when a value or the rate is not finite (the file would hold `NaN` or
 *   `Infinity`, which no CSV reader takes for a number), naming the first such value.
 * @example
 * writeFileAtomic('walk.csv', frameTableCsv(table)); // frame,time,Hips.qx,...
 */
export function* frameTableCsv(t: FrameTable): Generator<string> {
  checkFinite(t);
  const header = ['frame', 'time'];
  for (let j = 0; j < t.joints; j++)
    for (const c of t.components) header.push(csvTextCell(`${t.names[j]}.${c}`));
  yield `${header.join(',')}\n`;
  const rowWidth = t.joints * t.width;
  let chunk = '';
  for (let f = 0; f < t.frames; f++) {
    let row = `${f},${f / t.rate}`;
    const base = f * rowWidth;
    for (let i = 0; i < rowWidth; i++) row += `,${t.data[base + i]}`;
    chunk += `${row}\n`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * JSON `{ kind, units, rate, frames, joints, names, components, shape, data }` with `data` nested as
 * `[frame][joint][component]`. Yields chunks so large tables stream to disk.
 *
 * @throws {InvalidValueError} when a value or the rate is not finite (JSON has no number for `NaN` or
 *   `Infinity`), naming the first such value.
 * @example
 * writeFileAtomic('walk.json', frameTableJson(table)); // JSON.parse(text).data[f][j][c]
 */
export function* frameTableJson(t: FrameTable): Generator<string> {
  checkFinite(t);
  const head = {
    kind: t.kind,
    ...(t.units ? { units: t.units } : {}),
    rate: t.rate,
    frames: t.frames,
    joints: t.joints,
    names: t.names,
    components: t.components,
    shape: [t.frames, t.joints, t.width],
    ...(t.sixd ? { sixd: t.sixd } : {}),
  };
  yield `${JSON.stringify(head).slice(0, -1)},"data":[`;
  let chunk = '';
  for (let f = 0; f < t.frames; f++) {
    const parts: string[] = [];
    for (let j = 0; j < t.joints; j++) {
      const base = (f * t.joints + j) * t.width;
      const v: number[] = [];
      for (let k = 0; k < t.width; k++) v.push(t.data[base + k]);
      parts.push(`[${v.join(',')}]`);
    }
    chunk += `${f ? ',' : ''}\n[${parts.join(',')}]`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\n]}\n`;
}

/**
 * A text cell of a CSV file: neutralised when a spreadsheet would run it as a formula (a leading `=`, `+`,
 * `-`, `@`, tab or carriage return gets a `'` in front, and quotes), quoted when it holds a comma, quote or
 * line break. For text only: numbers are written as they are.
 *
 * @example
 * csvTextCell('Hips.qx'); // 'Hips.qx'
 * csvTextCell('=1+1'); // `"'=1+1"`
 */
export function csvTextCell(s: string): string {
  const formula = /^[=+\-@\t\r]/.test(s);
  const text = formula ? `'${s}` : s;
  return formula || /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function checkFinite(t: FrameTable): void {
  if (!(Number.isFinite(t.rate) && t.rate > 0))
    throw new InvalidValueError(`frame table: rate must be a finite positive number, got ${t.rate}`);
  const n = t.frames * t.joints * t.width;
  for (let i = 0; i < n; i++) {
    if (Number.isFinite(t.data[i])) continue;
    const frame = Math.floor(i / (t.joints * t.width));
    const joint = Math.floor(i / t.width) % t.joints;
    throw new InvalidValueError(
      `frame table: ${t.data[i]} at frame ${frame}, ${t.names[joint]}.${t.components[i % t.width]} is not a finite number`,
      { frame, joint },
    );
  }
}
