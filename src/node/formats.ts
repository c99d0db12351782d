// Tabular outputs of per-frame features: NumPy-free CSV and JSON writers over frames x joints x width arrays.

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
}

/**
 * CSV with a header row (`frame,time,<joint>.<component>,...`) and one row per frame, numbers in
 * shortest round-trip form. Yields chunks so large tables stream to disk.
 *
 * @example
 * writeFileAtomic('walk.csv', frameTableCsv(table)); // frame,time,Hips.qx,...
 */
export function* frameTableCsv(t: FrameTable): Generator<string> {
  const header = ['frame', 'time'];
  for (let j = 0; j < t.joints; j++)
    for (const c of t.components) header.push(csvField(`${t.names[j]}.${c}`));
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
 * @example
 * writeFileAtomic('walk.json', frameTableJson(table)); // JSON.parse(text).data[f][j][c]
 */
export function* frameTableJson(t: FrameTable): Generator<string> {
  const head = {
    kind: t.kind,
    ...(t.units ? { units: t.units } : {}),
    rate: t.rate,
    frames: t.frames,
    joints: t.joints,
    names: t.names,
    components: t.components,
    shape: [t.frames, t.joints, t.width],
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

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
