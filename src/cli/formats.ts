// The file formats the commands read and write, named once: every command's help lists its inputs and
// outputs from this table (`Command.inputs`, `Command.outputs`), so a help text cannot name a format list
// of its own that drifts from what the readers take.

/** One file format as the help names it. */
export interface CliFormat {
  /** Name shown in help (`glTF/GLB`). */
  name: string;
  /** File extensions, lower case with the dot. */
  extensions: readonly string[];
  /** What the format holds or where it comes from, shown after the extensions. */
  note?: string;
}

/** Every format a command reads or writes, by id. */
export const CLI_FORMATS = {
  bvh: { name: 'BVH', extensions: ['.bvh'] },
  gltf: { name: 'glTF/GLB', extensions: ['.gltf', '.glb'] },
  amass: { name: 'AMASS', extensions: ['.npz'], note: 'SMPL, SMPL+H, SMPL-X' },
  smpl: { name: 'SMPL parameters', extensions: ['.npz', '.json'], note: 'pose-estimator output' },
  npy: { name: 'NumPy', extensions: ['.npy'] },
  npz: { name: 'NumPy archive', extensions: ['.npz'] },
  csv: { name: 'CSV', extensions: ['.csv'] },
  json: { name: 'JSON', extensions: ['.json'] },
  svg: { name: 'SVG plot', extensions: ['.svg'] },
  text: { name: 'a report', extensions: [], note: 'on stderr, or JSON on stdout with --json' },
} as const satisfies Record<string, CliFormat>;

/** The id of a format of {@link CLI_FORMATS}. */
export type CliFormatId = keyof typeof CLI_FORMATS;

/** The formats that hold a motion clip: what the clip commands read, and write by the output's extension. */
export const CLIP_IO: readonly CliFormatId[] = ['bvh', 'gltf', 'amass'];

/** `BVH (.bvh), glTF/GLB (.gltf, .glb), AMASS (.npz; SMPL, SMPL+H, SMPL-X)`: formats for a help line. */
export function formatList(ids: readonly CliFormatId[]): string {
  return ids
    .map((id) => {
      const f: CliFormat = CLI_FORMATS[id];
      const detail = [f.extensions.join(', '), f.note].filter((s) => s).join('; ');
      return detail ? `${f.name} (${detail})` : f.name;
    })
    .join(', ');
}
