import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  numberOption,
  OUTPUT_OPTIONS,
  UsageError,
} from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { bvhOutputOptions, precisionOption } from './shared.js';

/** Largest frame number taken: far beyond any capture (a day at 1 kHz is 8.64e7 frames). */
const MAX_FRAME = 1e9;

/** `rotsig subclip`: keep a range of frames. */
export const subclipCommand: Command = {
  name: 'subclip',
  summary: 'keep frames [start, end) of each clip (trim a leading T-pose or cut-in)',
  usage: 'rotsig subclip <file|dir>... -o <file|dir> --start <frame> [--end <frame>]',
  description: `
Writes frames --start up to (not including) --end of each clip, frame numbers 0-based as 'rotsig info'
prints them; the kept frames keep their times (subclip). 'info' names a leading T-pose or other jump with
the --start that trims it. On a glTF file a frame is a step of the key rate info reports (the keys' own
rate when they are uniform), and the keys inside the range are kept exactly, with a key evaluated at each
end. A range that holds no frame of a file fails for that file with a message naming its length.
Time: the kept frames and keys keep their times, so a cut from 0.2 s starts at 0.2 s (a glTF player
holds its first pose until then); --rebase shifts the cut to start at 0 s.`,
  examples: [
    'rotsig subclip samples/01_01.bvh -o jump.bvh --start 1',
    'rotsig subclip take.bvh -o part.bvh --start 120 --end 480',
    'rotsig subclip walk.glb -o step.glb --start 6 --end 16 --rebase',
  ],
  inputs: CLIP_IO,
  outputs: CLIP_IO,
  options: {
    start: { type: 'string', value: 'frame', description: 'first frame kept, 0-based (default 0)' },
    end: { type: 'string', value: 'frame', description: 'one past the last frame kept (default: the end)' },
    rebase: { type: 'boolean', description: 'start the cut at 0 s (default: keep its times)' },
    ...OUTPUT_OPTIONS,
    ...bvhOutputOptions,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const v = parsed.values;
    const range = { min: 0, max: MAX_FRAME, integer: true };
    const start = numberOption(v.start as string | undefined, '--start', range, 0);
    const end = v.end === undefined ? null : numberOption(v.end as string, '--end', range);
    if (end !== null && end <= start) throw new UsageError(`--end (${end}) must be after --start (${start})`);
    return runFileCommand(parsed, io, {
      command: 'subclip',
      steps: [{ op: 'subclip', start, end, ...(v.rebase === true ? { rebase: true } : {}) }],
      emit: { kind: 'clip', precision: precisionOption(parsed) },
      outputs: 'file',
    });
  },
};
